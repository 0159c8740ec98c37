//! `mjolnir`: the Forge pack pipeline's command line. See `cli` for the commands.

mod atomic;
mod cli;
mod config;
mod cook;
mod execute;
mod fingerprint;
mod graph;
mod html;
mod inspect;
mod keyed_log;
mod layout;
mod lock;
mod materialize;
mod plan;
mod probe;
mod progress;
mod release;
mod report;
mod stat_cache;
mod steps;
mod store;
mod wiring;

fn main() {
    // Like other command-line tools, end quietly when the reader of our output goes away
    // (`mjolnir forge inspect x.utoc | head`) instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(cli::run());
}
