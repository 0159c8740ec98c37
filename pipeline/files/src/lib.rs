//! Files as the pipeline and the launcher handle them: [`atomic`] writes that a killed
//! process cannot leave half-done, [`bounded`] reads of regular files within a size
//! limit, which nothing on disk (a FIFO, a device, a folder, a huge file) can block or
//! exhaust, and [`append`]s to logs that follow no link and wait on no FIFO.

pub mod append;
pub mod atomic;
pub mod bounded;
