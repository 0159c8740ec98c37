//! Fetching a blob a hit listed, when something reads it: streamed into the store and
//! checked as it arrives, once however many ask.

use std::io::{Read, Write};
use std::sync::atomic::Ordering;

use super::{hex, HitOutput, RemoteCache};
use crate::store::Store;

impl RemoteCache {
    /// Fetches a blob a hit listed into `store`, checking its size and both digests as it
    /// arrives: no more than one buffer of it is held, and only a blob that passes is put
    /// under its name. A failed exchange turns the remote off, as a failed lookup does.
    pub fn download(&self, output: &HitOutput, store: &Store) -> Result<(), String> {
        let once = self
            .downloads
            .lock()
            .expect("downloads lock")
            .entry(output.blake3.clone())
            .or_default()
            .clone();
        once.get_or_init(|| self.download_once(output, store))
            .clone()
    }

    /// Whether this cook downloaded the blob of this BLAKE3 (in the background or when it
    /// was read), and it passed.
    pub fn has_downloaded(&self, blake3: &str) -> bool {
        let downloads = self.downloads.lock().expect("downloads lock");
        downloads
            .get(blake3)
            .and_then(|once| once.get())
            .is_some_and(Result::is_ok)
    }

    fn download_once(&self, output: &HitOutput, store: &Store) -> Result<(), String> {
        if store.has_blob(&output.blake3, output.size) {
            return Ok(());
        }
        if self.down.load(Ordering::Relaxed) {
            return Err("the remote cache is off for the rest of this cook".into());
        }
        let path = format!("cas/{}", output.sha256);
        let mut response = match self.request(&path) {
            Ok(Some(response)) => response,
            Ok(None) => return Err(format!("the remote cache has no blob for {}", output.name)),
            Err(u) => {
                let why = u.0.clone();
                self.went_down(u);
                return Err(why);
            }
        };
        let mut body = response
            .body_mut()
            .with_config()
            .limit(output.size.saturating_add(1))
            .reader();
        let mut received = 0u64;
        let mut broke: Option<std::io::Error> = None;
        let stored = store.put_blob_with(&output.blake3, |file| {
            let mut digests = Digests::default();
            let mut buffer = vec![0u8; 64 << 10];
            loop {
                let n = match body.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) => {
                        let kept = std::io::Error::new(e.kind(), e.to_string());
                        broke = Some(e);
                        return Err(kept);
                    }
                };
                received += n as u64;
                if received > output.size {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "it is larger than its entry says",
                    ));
                }
                digests.update(&buffer[..n]);
                file.write_all(&buffer[..n])?;
            }
            match digests.name(&output.sha256, &output.blake3, output.size) {
                true => Ok(()),
                false => Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "it is not the blob its entry names",
                )),
            }
        });
        self.counters
            .bytes_down
            .fetch_add(received, Ordering::Relaxed);
        match (stored, broke) {
            (Ok(()), _) => {
                self.counters
                    .downloaded_blobs
                    .fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            // A body that stalls or breaks: the server is down for this cook.
            (Err(_), Some(e)) if !matches!(e.kind(), std::io::ErrorKind::InvalidData) => {
                let u = self.unreachable(&path, e);
                let why = u.0.clone();
                self.went_down(u);
                Err(why)
            }
            (Err(e), _) => {
                let why = format!("the blob for {} was not used: {e}", output.name);
                self.counters.refused.fetch_add(1, Ordering::Relaxed);
                self.warn(format!(
                    "warning[remote_cache_refused]: {why}; the steps that need it were cooked locally"
                ));
                Err(why)
            }
        }
    }
}

/// Both digests of bytes that may arrive in pieces.
#[derive(Default)]
struct Digests {
    sha256: sha2::Sha256,
    blake3: blake3::Hasher,
    size: u64,
}

impl Digests {
    fn update(&mut self, bytes: &[u8]) {
        use sha2::Digest;
        self.sha256.update(bytes);
        self.blake3.update(bytes);
        self.size += bytes.len() as u64;
    }

    /// Whether the bytes are the ones these digests and this size name.
    fn name(self, sha256: &str, blake3: &str, size: u64) -> bool {
        use sha2::Digest;
        self.size == size
            && hex(&self.sha256.finalize()) == sha256
            && self.blake3.finalize().to_hex().as_str() == blake3
    }
}
