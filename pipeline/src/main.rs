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
mod phases;
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
    execute, fingerprint, graph, keyed_log, lock, materialize, remote, seal, spare, stat_cache,
    store,
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
    keep_freed_memory_at_hand();
    std::process::exit(cli::run());
}

/// glibc's malloc hands memory back to the system as soon as the top of a thread's arena
/// is free, and maps it again at the next large allocation: a cook makes and drops outputs
/// of a hundred KiB and more on every thread, and each round trip was an `mprotect` (the
/// other core's TLB flushed with it) and fresh page faults: one edit made 700 such calls
/// on one worker thread. Keeping up to 64 MiB at hand (and growing by 16 MiB) took a
/// catalog-sized edit from 75 ms to 72 and the stock packs' from 15.0 ms to 12.2 (medians
/// of 20 interleaved edits), for about a MiB of peak RSS.
fn keep_freed_memory_at_hand() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters, before any thread starts.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 16 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
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
