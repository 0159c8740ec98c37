//! A shared cache on the Bazel HTTP cache protocol: bazel-remote, nginx with WebDAV, or
//! anything that serves `GET`/`HEAD`/`PUT` on two folders.
//!
//! | path | holds |
//! |---|---|
//! | `<url>/cas/<sha256>` | an output's bytes, named by their SHA-256 |
//! | `<url>/ac/<key>` | a step's result: an `ActionResult` protobuf listing its outputs ([`action_result`]) |
//!
//! A step the local cache misses is looked up before it is cooked: in the cook's bundle
//! (`bundle`) when one was taken, else on the server. An entry is taken only when a
//! writer the reader trusts signed it (`[cache] trusted_writers`); one that fails any
//! check is refused and counted, and the step is cooked locally. A hit's large outputs
//! are downloaded only when something reads them (`download`), checked against both
//! digests as they arrive. After a step is cooked on a machine with a writer key, a
//! background worker (`jobs`) uploads its blobs (skipping large ones `HEAD` finds), then
//! its signed entry, so an entry never names a blob the server lacks. A machine without a
//! writer key only reads. The first transport failure (refused, timed out, or refused
//! credentials) turns the remote off for the rest of the cook, with one warning.

pub mod action_result;
pub mod bundle;
pub mod credentials;
mod download;
mod jobs;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::cooker::BadOutputs;

/// The remote cache a cook uses: its URL, whether this machine only reads it, the key it
/// signs what it writes with, and the writers whose entries it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    pub url: String,
    pub readonly: bool,
    pub timeout: std::time::Duration,
    /// The Ed25519 seed this machine signs entries with; without one it never uploads.
    pub writer_seed: Option<[u8; 32]>,
    /// The public keys whose entries are taken; any other entry is a miss.
    pub trusted_writers: Vec<[u8; 32]>,
    /// How many requests may be in flight at once: steps that wait on the remote run on
    /// an I/O pool of this many threads, apart from the cooker threads.
    pub connections: usize,
}

/// The requests in flight unless `[cache] remote_connections` says otherwise.
pub const CONNECTIONS: usize = 32;

pub use action_result::RemoteOutput;

/// One output of a hit: its digests and size, and its bytes when the entry carries them
/// (checked against both digests). The others are fetched only when something reads them
/// ([`RemoteCache::download`]).
#[derive(Debug, Clone)]
pub struct HitOutput {
    pub name: String,
    pub blake3: String,
    pub sha256: String,
    pub size: u64,
    pub bytes: Option<Vec<u8>>,
    /// A spliced output's: its blob is its recipe, which makes this many bytes.
    pub spliced: Option<u64>,
}

/// What the remote holds for a key.
pub enum Fetched {
    Miss,
    Hit(Vec<HitOutput>),
}

/// The counts a cook reports.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub hits: u64,
    pub misses: u64,
    /// Entries or blobs that failed a check and were not used.
    pub refused: u64,
    /// Of those, entries with no writer's signature.
    pub refused_unsigned: u64,
    /// Of those, entries signed by a key not trusted, or whose signature fails.
    pub refused_untrusted: u64,
    pub uploaded_blobs: u64,
    /// Blobs `HEAD` showed the server already had.
    pub present_blobs: u64,
    pub uploaded_entries: u64,
    /// Stage bundles found and taken, and the entries they held.
    pub bundles_taken: u64,
    pub bundled_entries: u64,
    /// Stage bundles that failed a check (their steps were asked for one by one).
    pub bundles_refused: u64,
    pub bundles_uploaded: u64,
    /// Outputs of hits too large to travel in their entry: fetched only when read.
    pub listed_blobs: u64,
    /// Of those, the ones something read, so they were fetched.
    pub downloaded_blobs: u64,
    pub bytes_down: u64,
    pub bytes_up: u64,
    /// Every request sent: lookups, downloads and uploads.
    pub requests: u64,
}

#[derive(Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    refused: AtomicU64,
    refused_unsigned: AtomicU64,
    refused_untrusted: AtomicU64,
    uploaded_blobs: AtomicU64,
    present_blobs: AtomicU64,
    uploaded_entries: AtomicU64,
    bundles_taken: AtomicU64,
    bundled_entries: AtomicU64,
    bundles_refused: AtomicU64,
    bundles_uploaded: AtomicU64,
    listed_blobs: AtomicU64,
    downloaded_blobs: AtomicU64,
    bytes_down: AtomicU64,
    bytes_up: AtomicU64,
    requests: AtomicU64,
}

/// The largest step entry read: its small outputs ride inside it, up to
/// [`action_result::INLINE_TOTAL`] in all.
const MAX_ENTRY_BYTES: u64 = 2 << 20;

/// What an uploaded entry carries inside it.
#[derive(Clone, Copy)]
enum Inline {
    /// Outputs of at most [`action_result::INLINE_MAX`], up to
    /// [`action_result::INLINE_TOTAL`] in all.
    Small,
    /// Every output: a bundle, which a reader wants in one request.
    All,
}

/// The most a step's outputs may add up to, as an entry declares them: more than any
/// container a pack makes.
const MAX_ENTRY: u64 = 1 << 30;

pub struct RemoteCache {
    base: String,
    agent: ureq::Agent,
    authorization: Option<String>,
    readonly: bool,
    writer: Option<ed25519_dalek::SigningKey>,
    trusted: Vec<ed25519_dalek::VerifyingKey>,
    /// Set by the first transport failure: nothing more is asked of the server.
    down: AtomicBool,
    counters: Counters,
    warnings: Mutex<Vec<String>>,
    connections: usize,
    /// Uploads and downloads waiting for a background worker.
    jobs: jobs::Jobs,
    /// Each blob downloaded once, however many outputs or workers ask for it: by BLAKE3,
    /// the outcome of its one download.
    downloads: Mutex<HashMap<String, Arc<Download>>>,
    /// The BLAKE3s of the outputs the bundle's writer found in its set folders: a hit's
    /// output among them is downloaded in the background as soon as the hit is taken.
    landing: Mutex<std::collections::HashSet<String>>,
    /// Entries a stage's bundle held, by key, taken as their steps are looked up.
    bundled: Mutex<HashMap<String, Vec<u8>>>,
    /// On a writer: the entries it wrote or took this cook, by key, for the bundles.
    seen: Mutex<HashMap<String, Vec<u8>>>,
    /// The key the cook's bundle is filed under: its first stage's.
    bundle_key: std::sync::OnceLock<String>,
    /// Entries this cook took from the server one by one or uploaded: what a bundle would
    /// have spared, so a writer files a new one.
    unbundled: AtomicU64,
}

/// A blob's one download: its outcome, once it has one; those who ask meanwhile wait.
type Download = std::sync::OnceLock<Result<(), String>>;

/// A step's outputs by name, shared with the store rather than copied.
pub type SharedFiles = Vec<Upload>;

/// One output of a cooked step, to upload: its name, the bytes of its blob, and for a
/// spliced output (`splice`: the blob is its recipe) the size of the bytes it makes.
#[derive(Debug, Clone)]
pub struct Upload {
    pub name: String,
    pub blob: Arc<Vec<u8>>,
    pub spliced: Option<u64>,
}

/// A remote cache URL this client will not use, printed with its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadRemoteUrl {
    NotHttp(String),
    /// Credentials in the URL would show in pipeline.toml and the process list.
    Credentials(String),
}

impl std::fmt::Display for BadRemoteUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadRemoteUrl::NotHttp(url) => write!(f, "error[remote_cache_url]: {url:?} is not an http:// or https:// URL"),
            BadRemoteUrl::Credentials(url) => write!(
                f,
                "error[remote_cache_credentials]: {url:?} holds credentials; set {} or a netrc entry instead, so they stay out of pipeline.toml and the process list",
                credentials::TOKEN_VARIABLE
            ),
        }
    }
}

impl std::error::Error for BadRemoteUrl {}

/// An HTTP exchange that did not give an answer: the server is down, slow, or refuses us.
struct Unreachable(String);

impl RemoteCache {
    /// A client for `url` (`http://host:port/prefix`). Credentials in the URL are refused:
    /// they come from the environment or netrc ([`credentials`]).
    pub fn new(settings: &Remote) -> Result<RemoteCache, BadRemoteUrl> {
        let url = settings.url.as_str();
        let rest = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"))
            .ok_or_else(|| BadRemoteUrl::NotHttp(url.to_string()))?;
        let authority = rest.split('/').next().unwrap_or_default();
        if authority.contains('@') {
            return Err(BadRemoteUrl::Credentials(url.to_string()));
        }
        let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
        // Each phase has its limit, but name resolution has none of its own: with one,
        // ureq resolves on a new thread for every request, which was a tenth of a fresh
        // clone's time. The system resolver has its own timeouts.
        let limit = Some(settings.timeout);
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(settings.timeout.min(Duration::from_secs(3))))
            .timeout_send_request(limit)
            .timeout_send_body(limit)
            .timeout_recv_response(limit)
            .timeout_recv_body(limit)
            .timeout_global(limit.map(|l| l * 2))
            .http_status_as_error(false)
            // Keep a connection for every request that may be in flight.
            .max_idle_connections(settings.connections.max(1))
            .max_idle_connections_per_host(settings.connections.max(1))
            .build();
        Ok(RemoteCache {
            base: url.trim_end_matches('/').to_string(),
            agent: config.into(),
            authorization: credentials::authorization(host),
            readonly: settings.readonly,
            writer: settings
                .writer_seed
                .map(|seed| ed25519_dalek::SigningKey::from_bytes(&seed)),
            // A writer takes back what it signed itself.
            trusted: settings
                .trusted_writers
                .iter()
                .filter_map(|k| ed25519_dalek::VerifyingKey::from_bytes(k).ok())
                .chain(
                    settings
                        .writer_seed
                        .map(|seed| ed25519_dalek::SigningKey::from_bytes(&seed).verifying_key()),
                )
                .collect(),
            down: AtomicBool::new(false),
            counters: Counters::default(),
            warnings: Mutex::new(Vec::new()),
            connections: settings.connections.max(1),
            jobs: jobs::Jobs::default(),
            downloads: Mutex::new(HashMap::new()),
            landing: Mutex::new(std::collections::HashSet::new()),
            bundled: Mutex::new(HashMap::new()),
            seen: Mutex::new(HashMap::new()),
            bundle_key: std::sync::OnceLock::new(),
            unbundled: AtomicU64::new(0),
        })
    }

    /// How many requests may be in flight at once.
    pub fn connections(&self) -> usize {
        self.connections
    }

    /// Whether a failed exchange turned the remote off for the rest of the cook.
    pub fn is_down(&self) -> bool {
        self.down.load(Ordering::Relaxed)
    }

    /// Whether this machine uploads what it cooks: it has a writer key and the remote is
    /// not read-only.
    pub fn writes(&self) -> bool {
        self.writer.is_some() && !self.readonly
    }

    pub fn counts(&self) -> Counts {
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Counts {
            hits: get(&c.hits),
            misses: get(&c.misses),
            refused: get(&c.refused),
            refused_unsigned: get(&c.refused_unsigned),
            refused_untrusted: get(&c.refused_untrusted),
            uploaded_blobs: get(&c.uploaded_blobs),
            present_blobs: get(&c.present_blobs),
            uploaded_entries: get(&c.uploaded_entries),
            bundles_taken: get(&c.bundles_taken),
            bundled_entries: get(&c.bundled_entries),
            bundles_refused: get(&c.bundles_refused),
            bundles_uploaded: get(&c.bundles_uploaded),
            listed_blobs: get(&c.listed_blobs),
            downloaded_blobs: get(&c.downloaded_blobs),
            bytes_down: get(&c.bytes_down),
            bytes_up: get(&c.bytes_up),
            requests: get(&c.requests),
        }
    }

    /// The warnings to print once the cook ends: the server going down, entries refused.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.lock().expect("warnings lock").clone()
    }

    fn warn(&self, warning: String) {
        self.warnings.lock().expect("warnings lock").push(warning);
    }

    /// Marks the server down after a failed exchange; only the first one is reported.
    fn went_down(&self, Unreachable(why): Unreachable) {
        if !self.down.swap(true, Ordering::Relaxed) {
            self.warn(format!(
                "warning[remote_cache_down]: {why}; cooking locally without the remote cache for the rest of this cook"
            ));
        }
    }

    /// The outputs recorded for `key`, or a miss. An entry that fails a check is refused
    /// (counted and warned about) and reads as a miss. No blob is downloaded here: the
    /// outputs the entry carries are checked, the others are only listed.
    ///
    /// `expected` checks the output names the entry lists (the step's kind's).
    pub fn fetch(
        &self,
        key: &str,
        expected: &dyn Fn(&[&str]) -> Result<(), BadOutputs>,
    ) -> Fetched {
        if self.down.load(Ordering::Relaxed) {
            return Fetched::Miss;
        }
        match self.try_fetch(key, expected) {
            Ok(Some(files)) => {
                self.counters.hits.fetch_add(1, Ordering::Relaxed);
                let listed = files.iter().filter(|o| o.bytes.is_none()).count();
                self.counters
                    .listed_blobs
                    .fetch_add(listed as u64, Ordering::Relaxed);
                Fetched::Hit(files)
            }
            Ok(None) => {
                self.counters.misses.fetch_add(1, Ordering::Relaxed);
                Fetched::Miss
            }
            Err(Refusal::Unreachable(u)) => {
                self.went_down(u);
                Fetched::Miss
            }
            Err(Refusal::Bad(why)) => {
                self.refuse(key, &why);
                Fetched::Miss
            }
            Err(Refusal::Untrusted(why)) => {
                let counter = match why {
                    action_result::Refused::Unsigned => &self.counters.refused_unsigned,
                    _ => &self.counters.refused_untrusted,
                };
                counter.fetch_add(1, Ordering::Relaxed);
                self.refuse(key, &format!("its entry is not taken: {why}"));
                Fetched::Miss
            }
        }
    }

    /// Counts and reports an entry that cannot be used.
    pub fn refuse(&self, key: &str, why: &str) {
        self.counters.refused.fetch_add(1, Ordering::Relaxed);
        self.warn(format!(
            "warning[remote_cache_refused]: the remote entry for step key {} was not used: {why}; the step was cooked locally",
            &key[..key.len().min(16)]
        ));
    }

    fn try_fetch(
        &self,
        key: &str,
        expected: &dyn Fn(&[&str]) -> Result<(), BadOutputs>,
    ) -> Result<Option<Vec<HitOutput>>, Refusal> {
        self.try_fetch_within(key, expected, MAX_ENTRY_BYTES)
    }

    /// [`try_fetch`](RemoteCache::try_fetch), reading an entry of at most `limit` bytes.
    fn try_fetch_within(
        &self,
        key: &str,
        expected: &dyn Fn(&[&str]) -> Result<(), BadOutputs>,
        limit: u64,
    ) -> Result<Option<Vec<HitOutput>>, Refusal> {
        let bundled = self.bundled.lock().expect("bundle lock").remove(key);
        let (entry, decoded) = match bundled {
            Some(entry) => {
                let decoded = action_result::decode_vouched(&entry);
                (entry, decoded)
            }
            None => match self.get(&format!("ac/{key}"), limit)? {
                Some(entry) => {
                    self.unbundled.fetch_add(1, Ordering::Relaxed);
                    let decoded = action_result::decode(key, &entry, &self.trusted);
                    (entry, decoded)
                }
                None => return Ok(None),
            },
        };
        let outputs = decoded.map_err(|why| match why {
            action_result::Refused::Damaged(why) => {
                Refusal::Bad(format!("its entry cannot be read: {why}"))
            }
            other => Refusal::Untrusted(other),
        })?;
        let names: Vec<&str> = outputs.iter().map(|o| o.name.as_str()).collect();
        expected(&names).map_err(|why| Refusal::Bad(format!("it lists {why}")))?;
        self.remember(key, &entry);
        let declared = outputs
            .iter()
            .fold(0u64, |sum, o| sum.saturating_add(o.size));
        if declared > MAX_ENTRY {
            return Err(Refusal::Bad(format!(
                "its outputs add up to {declared} bytes; at most {MAX_ENTRY} are fetched for a step"
            )));
        }
        let mut found = Vec::with_capacity(outputs.len());
        for o in outputs {
            if let Some(bytes) = &o.inline {
                if !blake3_names(bytes, &o.blake3, o.size) {
                    return Err(Refusal::Bad(format!(
                        "the bytes it holds for {} fail their digests",
                        o.name
                    )));
                }
            }
            found.push(HitOutput {
                name: o.name,
                blake3: o.blake3,
                sha256: o.sha256,
                size: o.size,
                bytes: o.inline,
                spliced: o.spliced,
            });
        }
        Ok(Some(found))
    }

    pub fn upload(&self, key: &str, outputs: &[Upload]) {
        let Some(writer) = self.writer.as_ref().filter(|_| !self.readonly) else {
            return;
        };
        if self.down.load(Ordering::Relaxed) {
            return;
        }
        match self.try_upload(key, outputs, writer) {
            Ok(()) => {
                self.counters
                    .uploaded_entries
                    .fetch_add(1, Ordering::Relaxed);
            }
            Err(u) => self.went_down(u),
        }
    }

    fn try_upload(
        &self,
        key: &str,
        outputs: &[Upload],
        writer: &ed25519_dalek::SigningKey,
    ) -> Result<(), Unreachable> {
        self.try_upload_inlining(key, outputs, writer, Inline::Small)
    }

    /// Uploads an entry, carrying inside it the outputs `inline` says (each is in `cas/`
    /// too, for validating servers and other clients).
    fn try_upload_inlining(
        &self,
        key: &str,
        outputs: &[Upload],
        writer: &ed25519_dalek::SigningKey,
        inline: Inline,
    ) -> Result<(), Unreachable> {
        let (inline_max, mut inline_budget) = match inline {
            Inline::Small => (action_result::INLINE_MAX, action_result::INLINE_TOTAL),
            Inline::All => (u64::MAX, u64::MAX),
        };
        let mut listed = Vec::with_capacity(outputs.len());
        for Upload {
            name,
            blob: bytes,
            spliced,
        } in outputs
        {
            let sha256 = sha256_hex(bytes);
            let path = format!("cas/{sha256}");
            let size = bytes.len() as u64;
            // A small blob is sent rather than asked about: a PUT of the same bytes under
            // their own hash changes nothing, and it costs one round trip, not two. A large
            // one is sent only when `HEAD` does not find it.
            if size > action_result::INLINE_MAX && self.head(&path)? {
                self.counters.present_blobs.fetch_add(1, Ordering::Relaxed);
            } else {
                self.put(&path, bytes)?;
                self.counters.uploaded_blobs.fetch_add(1, Ordering::Relaxed);
            }
            let inline = size <= inline_max && size <= inline_budget;
            if inline {
                inline_budget -= size;
            }
            listed.push(RemoteOutput {
                name: name.to_string(),
                sha256,
                blake3: blake3::hash(bytes).to_hex().to_string(),
                size,
                inline: inline.then(|| bytes.to_vec()),
                spliced: *spliced,
            });
        }
        let entry = action_result::encode(key, &listed, writer);
        self.put(&format!("ac/{key}"), &entry)?;
        self.remember(key, &entry);
        self.unbundled.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base)
    }

    fn unreachable(&self, path: &str, what: impl std::fmt::Display) -> Unreachable {
        Unreachable(format!("the remote cache {} {what}", self.url(path)))
    }

    /// A refused request means wrong or missing credentials: no use asking again.
    fn check_access(&self, path: &str, status: u16) -> Result<(), Unreachable> {
        match status {
            401 | 403 => Err(self.unreachable(
                path,
                format_args!(
                    "answered {status}: check {} or the netrc entry for its host",
                    credentials::TOKEN_VARIABLE
                ),
            )),
            _ => Ok(()),
        }
    }

    /// `GET`s `path`: the response when it is there (200), `None` when it is not (404).
    fn request(&self, path: &str) -> Result<Option<ureq::http::Response<ureq::Body>>, Unreachable> {
        self.counters.requests.fetch_add(1, Ordering::Relaxed);
        let mut request = self.agent.get(self.url(path));
        if let Some(a) = &self.authorization {
            request = request.header("Authorization", a);
        }
        let response = request.call().map_err(|e| self.unreachable(path, e))?;
        let status = response.status().as_u16();
        self.check_access(path, status)?;
        match status {
            200 => Ok(Some(response)),
            404 => Ok(None),
            code => Err(self.unreachable(path, format_args!("answered {code}"))),
        }
    }

    fn get(&self, path: &str, limit: u64) -> Result<Option<Vec<u8>>, Refusal> {
        let Some(mut response) = self.request(path).map_err(Refusal::Unreachable)? else {
            return Ok(None);
        };
        let bytes = response
            .body_mut()
            .with_config()
            .limit(limit.saturating_add(1))
            .read_to_vec()
            .map_err(|e| match e {
                // More than it declared: the entry is refused, the server is fine.
                ureq::Error::BodyExceedsLimit(_) => {
                    Refusal::Bad(format!("{} is larger than declared", self.url(path)))
                }
                // A body that stalls or breaks: the server is down for this cook.
                other => Refusal::Unreachable(self.unreachable(path, other)),
            })?;
        self.counters
            .bytes_down
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(Some(bytes))
    }

    fn head(&self, path: &str) -> Result<bool, Unreachable> {
        self.counters.requests.fetch_add(1, Ordering::Relaxed);
        let mut request = self.agent.head(self.url(path));
        if let Some(a) = &self.authorization {
            request = request.header("Authorization", a);
        }
        let response = request.call().map_err(|e| self.unreachable(path, e))?;
        let status = response.status().as_u16();
        self.check_access(path, status)?;
        Ok(status == 200)
    }

    fn put(&self, path: &str, bytes: &[u8]) -> Result<(), Unreachable> {
        self.counters.requests.fetch_add(1, Ordering::Relaxed);
        let mut request = self.agent.put(self.url(path));
        if let Some(a) = &self.authorization {
            request = request.header("Authorization", a);
        }
        let response = request.send(bytes).map_err(|e| self.unreachable(path, e))?;
        let status = response.status().as_u16();
        self.check_access(path, status)?;
        if !(200..300).contains(&status) {
            return Err(self.unreachable(path, format_args!("refused an upload with {status}")));
        }
        self.counters
            .bytes_up
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }
}

/// Why a fetched entry was not used.
enum Refusal {
    Unreachable(Unreachable),
    Bad(String),
    /// Well formed, but not signed by a trusted writer.
    Untrusted(action_result::Refused),
}

/// Whether `bytes` are the ones a signed BLAKE3 and size name: enough for bytes that came
/// inside a signed entry; a blob fetched by its SHA-256 is checked against both.
fn blake3_names(bytes: &[u8], blake3: &str, size: u64) -> bool {
    bytes.len() as u64 == size && blake3::hash(bytes).to_hex().as_str() == blake3
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Lowercase SHA-256 hex, as the Bazel protocol names blobs.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}
