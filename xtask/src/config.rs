//! wasm-pack.toml: the pinned tool versions, build targets and browser flags the tasks use.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct Config {
    pub tools: Tools,
    pub npm: BTreeMap<String, String>,
    pub build: Build,
    #[serde(rename = "release-toolchain")]
    pub release_toolchain: ReleaseToolchain,
    pub chromium: Chromium,
    pub test: TestLimits,
}

#[derive(Debug, Deserialize)]
pub struct Tools {
    #[serde(rename = "wasm-pack")]
    pub wasm_pack: String,
    #[serde(rename = "wasm-bindgen-cli")]
    pub wasm_bindgen_cli: String,
    pub apt: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct Build {
    pub targets: Vec<String>,
    pub profile: String,
    pub max_wasm_gzip_bytes: u64,
}

/// The pinned nightly that builds the shipped wasm: std rebuilt for size, panics that abort at once.
#[derive(Debug, Deserialize)]
pub struct ReleaseToolchain {
    pub channel: String,
    #[serde(rename = "build-std")]
    pub build_std: Vec<String>,
    #[serde(rename = "build-std-features")]
    pub build_std_features: Vec<String>,
    pub rustflags: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct Chromium {
    pub binary: String,
    pub args: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct TestLimits {
    pub browser_file_timeout_secs: u64,
    pub node_timeout_secs: u64,
}

impl Config {
    pub fn load(root: &Path) -> Result<Config, String> {
        let path = root.join("wasm-pack.toml");
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        toml::from_str(&text).map_err(|error| format!("invalid {}: {error}", path.display()))
    }

    /// The webdriver capabilities the wasm-bindgen test runner reads (WASM_BINDGEN_TEST_WEBDRIVER_JSON).
    pub fn webdriver_json(&self) -> String {
        let args: Vec<String> = self
            .chromium
            .args
            .iter()
            .map(|arg| format!("\"{arg}\""))
            .collect();
        format!(
            "{{\"goog:chromeOptions\": {{\"binary\": \"{}\", \"args\": [{}]}}}}",
            self.chromium.binary,
            args.join(", ")
        )
    }
}
