//! Oodle-compressed blocks (Kraken, Mermaid, Selkie, Leviathan), as a shipped UE5 game's
//! Paks hold them, decoded by `oozextract` (pure Rust; no Oodle library).
//!
//! The decoder is not hardened: on corrupt input it can panic, and it can decode a
//! bit-flipped block "successfully" into wrong bytes, since it checks no checksum. So
//! every call is contained (`catch_unwind`), its output must be exactly the size the TOC
//! declares, and the caller checks each decoded chunk against its TOC hash before use.
//! One decoder is kept per thread; one that panicked is dropped and rebuilt.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use oozextract::Extractor;

use crate::error::{IoStoreError, Result};

/// The largest block decoded: UE writes 64 KiB blocks; a TOC declaring more is refused
/// before anything is allocated for it.
pub const MAX_BLOCK_BYTES: u32 = 4 << 20;

thread_local! {
    static DECODER: RefCell<Option<Box<Extractor>>> = const { RefCell::new(None) };
}

/// Decodes block `index` (`raw`, as stored) to exactly `size` bytes.
pub fn decode(raw: &[u8], size: u32, index: u64) -> Result<Vec<u8>> {
    if size > MAX_BLOCK_BYTES {
        return Err(IoStoreError::new(
            "ucas_oodle",
            format!("block {index} declares {size} bytes, more than the {MAX_BLOCK_BYTES} a block may hold"),
        ));
    }
    let mut out = vec![0u8; size as usize];
    let decoded = DECODER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let decoder = slot.get_or_insert_with(|| Box::new(Extractor::new()));
        let result = catch_unwind(AssertUnwindSafe(|| decoder.read_from_slice(raw, &mut out)));
        if result.is_err() {
            // Its state is whatever the panic left: start afresh next time.
            *slot = None;
        }
        result
    });
    match decoded {
        Ok(Ok(n)) if n == out.len() => Ok(out),
        Ok(Ok(n)) => Err(IoStoreError::new(
            "ucas_oodle",
            format!("block {index} decodes to {n} bytes, not the {size} its TOC declares"),
        )),
        Ok(Err(e)) => Err(IoStoreError::new(
            "ucas_oodle",
            format!("block {index} does not decode: {e}"),
        )),
        Err(_) => Err(IoStoreError::new(
            "ucas_oodle",
            format!("block {index} does not decode: the decoder failed on it (a corrupt block)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_truncation_are_coded_errors_never_panics() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2_000 {
            let len = (next() % 300) as usize;
            let raw: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let size = (next() % 70_000) as u32;
            if let Err(e) = decode(&raw, size, 0) {
                assert_eq!(e.code, "ucas_oodle");
            }
        }
        let e = decode(&[0x8c, 0x06], MAX_BLOCK_BYTES + 1, 3).unwrap_err();
        assert!(e.message.contains("block 3 declares"), "{}", e.message);
    }
}
