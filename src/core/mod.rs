//! The pure core: no clock, no I/O, no JS. Everything here compiles and is tested natively.

pub mod assembler;
pub mod message;
pub mod model_event;
pub mod provider;
pub mod tools;
