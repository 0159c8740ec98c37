//! The turntable: a block's views around Z as one looping animated GIF.

use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, RgbaImage};

/// How long each view shows.
pub const FRAME_MS: u32 = 250;

/// An animated GIF of `frames` in order, looping forever. GIF keeps 256 colours per frame
/// and one-bit transparency; the quantizer is deterministic, so the bytes are too.
pub fn turntable_gif(frames: &[RgbaImage]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = GifEncoder::new_with_speed(&mut out, 10);
        encoder
            .set_repeat(Repeat::Infinite)
            .expect("writing to memory");
        encoder
            .encode_frames(frames.iter().map(|f| {
                Frame::from_parts(f.clone(), 0, 0, Delay::from_numer_denom_ms(FRAME_MS, 1))
            }))
            .expect("writing to memory");
    }
    out
}
