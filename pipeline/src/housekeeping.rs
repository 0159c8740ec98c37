//! `mjolnir cache stats` and `mjolnir cache gc`: what the local cache holds and how it is
//! used, and trimming it to a size by least-recent use.
//!
//! Both take the build folder's lock, so they never see a cook half-way: `stats` waits
//! for a running cook, `gc` refuses (it would otherwise delete what the cook is about to
//! read).

use std::collections::HashMap;

use anyhow::{bail, Result};
use serde_json::json;

use crate::config::Config;
use crate::lock::{BuildLock, LockError};
use crate::store::{ActionRecord, Store};
use crate::usage;

/// How many recent cooks `stats` lists.
const RECENT: usize = 10;

pub fn stats(config: &Config, as_json: bool) -> Result<i32> {
    let _lock = match BuildLock::acquire(&config.out) {
        Ok(lock) => lock,
        Err(LockError::Busy) => {
            eprintln!(
                "waiting for the cook using {} to finish…",
                config.out.display()
            );
            BuildLock::wait(&config.out)?
        }
        Err(LockError::Io(e)) => bail!("cannot lock {}: {e}", config.out.display()),
    };
    let store = Store::open(&config.cache)?;
    let blobs = store.blobs()?;
    let actions = store.actions();
    let referenced: std::collections::HashSet<&str> = actions
        .iter()
        .flat_map(|a| a.outputs.iter().map(|o| o.hash.as_str()))
        .collect();
    let (orphans, orphan_bytes) = blobs
        .iter()
        .filter(|(h, _)| !referenced.contains(h.as_str()))
        .fold((0, 0), |(n, b), (_, size)| (n + 1, b + size));
    let bytes: u64 = blobs.iter().map(|(_, s)| s).sum();
    let cooks = usage::cooks(&config.cache);
    let recent = &cooks[cooks.len().saturating_sub(RECENT)..];
    if as_json {
        let value = json!({
            "cache": config.cache,
            "blobs": blobs.len(),
            "bytes": bytes,
            "entries": actions.len(),
            "unreferenced_blobs": orphans,
            "unreferenced_bytes": orphan_bytes,
            "recent_cooks": recent,
        });
        print!("{}", json_out::pretty_text(&value));
        return Ok(0);
    }
    println!(
        "{}: {} blobs, {}; {} step entries; {} blobs no entry names ({})",
        config.cache.display(),
        blobs.len(),
        size_text(bytes),
        actions.len(),
        orphans,
        size_text(orphan_bytes)
    );
    if recent.is_empty() {
        println!("no cooks recorded yet");
    } else {
        println!("recent cooks, newest last:");
    }
    let now = usage::now_s();
    for c in recent {
        println!("  {}", cook_text(c, now));
    }
    Ok(0)
}

fn cook_text(c: &usage::CookLine, now: u64) -> String {
    let ago = now.saturating_sub(c.unix_s);
    let when = match ago {
        0..60 => format!("{ago} s ago"),
        60..7200 => format!("{} min ago", ago / 60),
        _ => format!("{} h ago", ago / 3600),
    };
    if c.sealed {
        return format!(
            "#{} {when}: no-op (sealed), {} steps cached",
            c.number, c.steps
        );
    }
    let rate = if c.steps == 0 {
        0.0
    } else {
        100.0 * c.cached as f64 / c.steps as f64
    };
    let mut line = format!(
        "#{} {when}: {} steps, {rate:.1}% cached, {} run",
        c.number, c.steps, c.run
    );
    if c.failed > 0 {
        line.push_str(&format!(", {} failed", c.failed));
    }
    if c.remote_hits > 0 {
        line.push_str(&format!(", {} from the remote", c.remote_hits));
    }
    if c.stored_bytes > 0 {
        line.push_str(&format!(", {} stored", size_text(c.stored_bytes)));
    }
    line.push_str(&format!(", {:.2} s", c.seconds));
    line
}

/// Evicts least recently used entries (and the blobs only they name) until the blobs
/// take at most `max_bytes`. Blobs no entry names go first; what the last cook used
/// is never removed.
pub fn gc(config: &Config, max_bytes: u64) -> Result<i32> {
    let _lock = match BuildLock::acquire(&config.out) {
        Ok(lock) => lock,
        Err(LockError::Busy) => bail!(
            "error[build_locked]: a cook is using {}; run gc when it has finished (nothing was removed)",
            config.out.display()
        ),
        Err(LockError::Io(e)) => bail!("cannot lock {}: {e}", config.out.display()),
    };
    let store = Store::open(&config.cache)?;
    let uses = usage::uses(&config.cache)?;
    let plan = Eviction::plan(&store.blobs()?, &store.actions(), &uses, max_bytes);
    for key in &plan.entries {
        store.discard_action(key);
    }
    usage::forget(&config.cache, plan.entries.iter().map(String::as_str))?;
    for hash in &plan.blobs {
        store.remove_blob(hash)?;
    }
    // The seal recorded the action log's stamp, so the next cook checks everything.
    println!(
        "removed {} step entries and {} blobs ({}); the cache holds {}",
        plan.entries.len(),
        plan.blobs.len(),
        size_text(plan.freed),
        size_text(plan.left)
    );
    if plan.left > max_bytes {
        println!(
            "note: the last cook's outputs alone take {}, and gc never removes them",
            size_text(plan.kept)
        );
    }
    Ok(0)
}

/// What `gc` removes, decided before anything is deleted.
#[derive(Debug, Default)]
struct Eviction {
    entries: Vec<String>,
    blobs: Vec<String>,
    freed: u64,
    left: u64,
    /// The bytes of the blobs the last cook used.
    kept: u64,
}

impl Eviction {
    fn plan(
        blobs: &[(String, u64)],
        actions: &[ActionRecord],
        uses: &HashMap<String, u64>,
        max_bytes: u64,
    ) -> Eviction {
        let size: HashMap<&str, u64> = blobs.iter().map(|(h, s)| (h.as_str(), *s)).collect();
        let mut names: HashMap<&str, usize> = HashMap::new();
        for a in actions {
            for o in &a.outputs {
                *names.entry(o.hash.as_str()).or_default() += 1;
            }
        }
        let last = uses.values().copied().max();
        let used_last = |key: &str| last.is_some() && uses.get(key).copied() == last;
        let mut plan = Eviction {
            left: size.values().sum(),
            ..Eviction::default()
        };
        let mut kept: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        for a in actions.iter().filter(|a| used_last(&a.key)) {
            kept.extend(a.outputs.iter().map(|o| o.hash.as_str()));
        }
        plan.kept = kept.iter().filter_map(|h| size.get(h)).sum();
        let remove = |plan: &mut Eviction, hash: &str| {
            if let Some(s) = size.get(hash) {
                plan.blobs.push(hash.to_string());
                plan.freed += s;
                plan.left -= s;
            }
        };
        // Blobs no entry names: a cook killed before it recorded them, or evicted entries'.
        for (hash, _) in blobs
            .iter()
            .filter(|(h, _)| !names.contains_key(h.as_str()))
        {
            if plan.left <= max_bytes {
                return plan;
            }
            remove(&mut plan, hash);
        }
        // Then entries, least recently used first (never used: first of all), by key for
        // a stable order.
        let mut order: Vec<&ActionRecord> = actions.iter().filter(|a| !used_last(&a.key)).collect();
        order.sort_by_key(|a| (uses.get(&a.key).copied().unwrap_or(0), a.key.clone()));
        for a in order {
            if plan.left <= max_bytes {
                break;
            }
            plan.entries.push(a.key.clone());
            for o in &a.outputs {
                let n = names.get_mut(o.hash.as_str()).expect("counted above");
                *n -= 1;
                if *n == 0 && !kept.contains(o.hash.as_str()) {
                    remove(&mut plan, &o.hash);
                }
            }
        }
        plan
    }
}

/// `500M`, `2G`, `1.5GB`, `700k` or a byte count, in powers of 1024.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim().to_ascii_uppercase();
    let t = t
        .strip_suffix("IB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(&t);
    let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&t[..i], &t[i..]),
        None => (t, ""),
    };
    let scale: u64 = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(format!("{text:?} is not a size like 500M or 2G")),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a size like 500M or 2G"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("{text:?} is not a size like 500M or 2G"));
    }
    Ok((value * scale as f64) as u64)
}

fn size_text(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::OutputRef;

    fn action(key: &str, hashes: &[&str]) -> ActionRecord {
        ActionRecord {
            key: key.into(),
            outputs: hashes
                .iter()
                .map(|h| OutputRef {
                    name: format!("{h}.bin"),
                    hash: h.to_string(),
                    size: 10,
                    recipe: None,
                })
                .collect(),
        }
    }

    #[test]
    fn orphans_then_the_least_recently_used_go_and_the_last_cooks_stay() {
        let blobs: Vec<(String, u64)> = ["a", "b", "c", "d", "orphan"]
            .iter()
            .map(|h| (h.to_string(), 10))
            .collect();
        let actions = vec![
            action("old", &["a", "b"]),
            action("middle", &["c", "b"]),
            action("last", &["d"]),
        ];
        let uses = HashMap::from([
            ("old".to_string(), 1),
            ("middle".to_string(), 2),
            ("last".to_string(), 3),
        ]);
        // 50 bytes down to 30: the orphan, then `old` (whose `b` is still named by `middle`).
        let plan = Eviction::plan(&blobs, &actions, &uses, 30);
        assert_eq!(plan.entries, ["old"]);
        assert_eq!(plan.blobs, ["orphan", "a"]);
        assert_eq!(plan.left, 30);
        // Down to nothing: everything but the last cook's.
        let plan = Eviction::plan(&blobs, &actions, &uses, 0);
        assert_eq!(plan.entries, ["old", "middle"]);
        assert_eq!(plan.left, 10);
        assert_eq!(plan.kept, 10);
        assert!(!plan.blobs.contains(&"d".to_string()));
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(parse_size("500M"), Ok(500 << 20));
        assert_eq!(parse_size("1.5GB"), Ok(3 << 29));
        assert_eq!(parse_size("2 GiB"), Ok(2 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1M").is_err());
    }
}
