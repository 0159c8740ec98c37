//! `mjolnir`: the Forge pack pipeline's command line. See `cli` for the commands.

mod asset_build;
mod asset_lint;
mod asset_review;
mod cli;
mod codes;
mod compat;
mod config;
mod cook;
mod did_you_mean;
mod errors;
mod haf_loader;
mod housekeeping;
mod html;
mod inspect;
mod loaded_pack;
mod map;
mod previews;
mod print;
mod probe;
mod progress;
mod release;
mod report;
mod scaffold;
mod usage;
mod validate;
mod watch;

// One implementation of atomic writes serves the cook and the launcher.
use mjolnir_files::atomic;
// The Forge layer's modules, which the commands name as their own.
use forge::{donors, layout, paks, plan, steps, suggest, wiring};
// The build engine's modules, under the names the Forge layer has always used.
use engine::{
    execute, fingerprint, graph, keyed_log, lock, materialize, remote, seal, stat_cache, store,
};

fn main() {
    // Like other command-line tools, end quietly when the reader of our output goes away
    // (`mjolnir forge inspect x.utoc | head`) instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic and restores the default action, both
    // async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    std::process::exit(cli::run());
}

/// The first Ctrl-C asks a cook to stop starting steps (it finishes those running and
/// keeps the cache consistent); a second one ends the process at once.
#[cfg(unix)]
extern "C" fn on_interrupt(_: libc::c_int) {
    cook::CANCELLED.store(true, std::sync::atomic::Ordering::Relaxed);
    // SAFETY: signal() is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}
