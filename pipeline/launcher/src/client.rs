//! The Hub over HTTP, within one deadline for the whole sync: every request's timeout is
//! what is left of it, so a Hub that stalls cannot hold a sync past it. Every answer has a
//! size limit for its type, checked against the declared length first and against the
//! bytes as they arrive.

use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;

use crate::api::truncated;
use crate::finding::Finding;

pub struct Hub {
    base: String,
    agent: ureq::Agent,
    deadline: Instant,
}

impl Hub {
    pub fn new(base: &str, budget: Duration) -> Hub {
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(5)))
            .http_status_as_error(false)
            .max_redirects(0)
            .build();
        Hub {
            base: base.trim_end_matches('/').to_string(),
            agent: config.into(),
            deadline: Instant::now() + budget,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The body of `path`, at most `limit` bytes, or `None` for a 404.
    pub fn get(&self, path: &str, limit: u64) -> Result<Option<Vec<u8>>, Finding> {
        let url = self.url(path);
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Finding::new(
                "hub_deadline",
                &url,
                "the sync ran past its deadline before this request; nothing more is fetched",
            ));
        }
        let mut response = self
            .agent
            .get(&url)
            .config()
            .timeout_global(Some(left))
            .build()
            .call()
            .map_err(|e| Finding::new("hub_unreachable", &url, e.to_string()))?;
        match response.status().as_u16() {
            200 => {}
            404 => return Ok(None),
            code => {
                return Err(Finding::new(
                    "hub_status",
                    &url,
                    format!("the Hub answered {code}"),
                ))
            }
        }
        if response.body().content_length().is_some_and(|n| n > limit) {
            return Err(too_large(&url, limit));
        }
        let bytes = response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => too_large(&url, limit),
                ureq::Error::Timeout(_) => Finding::new(
                    "hub_deadline",
                    &url,
                    "the sync ran past its deadline during this download",
                ),
                other => Finding::new("hub_download", &url, other.to_string()),
            })?;
        Ok(Some(bytes))
    }

    /// `path` parsed as `T` (typed, so nothing larger than `T` is built), or `None` for a
    /// 404.
    pub fn json<T: DeserializeOwned>(&self, path: &str, limit: u64) -> Result<Option<T>, Finding> {
        let Some(bytes) = self.get(path, limit)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            Finding::new(
                "hub_payload",
                self.url(path),
                format!(
                    "not the Hub's answer for this path: {}",
                    truncated(&e.to_string())
                ),
            )
        })
    }
}

fn too_large(url: &str, limit: u64) -> Finding {
    Finding::new(
        "hub_too_large",
        url,
        format!("the answer is larger than {limit} bytes, the most this kind of answer may be"),
    )
}
