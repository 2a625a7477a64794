//! Running commands and the servers the tests need, always on 127.0.0.1, always stopped.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// Runs `command` with inherited output; an error names the command and its exit status.
pub fn run(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|error| format!("cannot start {command:?}: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed with {status}"))
    }
}

/// The trimmed standard output of a command, or `None` when it cannot run or fails.
pub fn output_of(command: &mut Command) -> Option<String> {
    let output = command.stderr(Stdio::null()).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_loopback_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .map_err(|error| format!("cannot bind 127.0.0.1: {error}"))?;
    listener
        .local_addr()
        .map(|address| address.port())
        .map_err(|error| error.to_string())
}

/// Local servers started for a task; all are killed when this is dropped, also on failure.
#[derive(Default)]
pub struct Servers {
    running: Vec<(String, Child)>,
}

impl Servers {
    /// Starts `command` with `PORT` set to a free loopback port, waits until it accepts
    /// connections on 127.0.0.1 (at most 60 s), and returns that port.
    pub fn start(
        &mut self,
        name: &str,
        command: &mut Command,
        log_dir: &Path,
    ) -> Result<u16, String> {
        let port = free_loopback_port()?;
        std::fs::create_dir_all(log_dir).map_err(|error| error.to_string())?;
        let log_path = log_dir.join(format!("{name}.log"));
        let log = std::fs::File::create(&log_path).map_err(|error| error.to_string())?;
        let log_err = log.try_clone().map_err(|error| error.to_string())?;
        let child = command
            .env("PORT", port.to_string())
            .env("HOST", "127.0.0.1")
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .spawn()
            .map_err(|error| format!("cannot start {name}: {error}"))?;
        self.running.push((name.to_owned(), child));
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                println!(
                    "  {name}: http://127.0.0.1:{port} (log {})",
                    log_path.display()
                );
                return Ok(port);
            }
            let (_, child) = self.running.last_mut().expect("just pushed");
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "{name} exited with {status}; see {}",
                    log_path.display()
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{name} did not listen on 127.0.0.1:{port} within 60 s"
                ));
            }
            sleep(Duration::from_millis(100));
        }
    }

    /// The name of the first server that has exited, if any.
    pub fn first_exited(&mut self) -> Option<String> {
        self.running
            .iter_mut()
            .find_map(|(name, child)| matches!(child.try_wait(), Ok(Some(_))).then(|| name.clone()))
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        for (_, child) in &mut self.running {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
