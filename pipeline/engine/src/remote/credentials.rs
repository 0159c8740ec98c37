//! Where the remote cache's credentials come from: the environment or a netrc file, never
//! `pipeline.toml`, which is committed.

use base64::Engine;

/// A bearer token for the remote cache, sent as `Authorization: Bearer <token>`.
pub const TOKEN_VARIABLE: &str = "MJOLNIR_REMOTE_CACHE_TOKEN";

/// The `Authorization` header for `host`: the token variable, else the netrc entry for the
/// host (`$NETRC`, or `~/.netrc`) as Basic credentials, else none.
pub fn authorization(host: &str) -> Option<String> {
    if let Some(token) = std::env::var(TOKEN_VARIABLE).ok().filter(|t| !t.is_empty()) {
        return Some(format!("Bearer {token}"));
    }
    let path = std::env::var_os("NETRC")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".netrc")))?;
    let text = std::fs::read_to_string(path).ok()?;
    let (login, password) = netrc_entry(&text, host)?;
    let pair = format!("{login}:{password}");
    Some(format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    ))
}

/// The login and password netrc gives `host`: its `machine` entry, else `default`.
fn netrc_entry(text: &str, host: &str) -> Option<(String, String)> {
    // Each entry: its machine (`None` for `default`), login and password.
    let mut entries: Vec<(Option<&str>, &str, &str)> = Vec::new();
    let mut tokens = text.split_whitespace();
    while let Some(token) = tokens.next() {
        match token {
            "machine" => entries.push((Some(tokens.next().unwrap_or_default()), "", "")),
            "default" => entries.push((None, "", "")),
            "login" | "password" => {
                let value = tokens.next().unwrap_or_default();
                if let Some(entry) = entries.last_mut() {
                    if token == "login" {
                        entry.1 = value;
                    } else {
                        entry.2 = value;
                    }
                }
            }
            _ => {}
        }
    }
    let pick = |machine: Option<&str>| entries.iter().find(|e| e.0 == machine);
    pick(Some(host))
        .or_else(|| pick(None))
        .map(|e| (e.1.to_string(), e.2.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hosts_entry_wins_over_default() {
        let text = "machine other login a password b\n\
                    machine cache.example login ci password s3cret\n\
                    default login anon password x\n";
        assert_eq!(
            netrc_entry(text, "cache.example"),
            Some(("ci".into(), "s3cret".into()))
        );
        assert_eq!(
            netrc_entry(text, "elsewhere"),
            Some(("anon".into(), "x".into()))
        );
        assert_eq!(netrc_entry("machine a login b password c", "z"), None);
    }
}
