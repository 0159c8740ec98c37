//! `mjolnir`: the Forge pack pipeline's command line. See `cli` for the commands.

mod atomic;
mod cli;
mod config;
mod cook;
mod execute;
mod fingerprint;
mod graph;
mod inspect;
mod lock;
mod materialize;
mod probe;
mod progress;
mod report;
mod stat_cache;
mod steps;
mod store;

fn main() {
    std::process::exit(cli::run());
}
