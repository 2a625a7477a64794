// The demo page, opened in Debian's Chromium through playwright-core: it loads the WASM package
// and shows its version. DEMO_URL comes from `cargo xtask test`, which serves www/ on 127.0.0.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";

const cargoToml = readFileSync(new URL("../../Cargo.toml", import.meta.url), "utf8");
const crateVersion = /^version = "([^"]+)"/m.exec(cargoToml)[1];

test("the demo page loads the package and shows its version", async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_BINARY,
    args: process.env.CHROMIUM_ARGS.split(" "),
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(process.env.DEMO_URL);
    await page.waitForFunction(
      () => document.getElementById("version")?.textContent !== "loading…",
      null,
      { timeout: 20000 },
    );
    assert.equal(await page.textContent("#version"), crateVersion);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
