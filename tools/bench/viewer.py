#!/usr/bin/env python3
"""The report's 3D viewer, opened in headless Chromium (#39): how long the report of the
three stock packs takes from the start of loading to its first drawn view.

Run from the repository root after `cargo build --release`:
    python3 tools/bench/viewer.py [--runs 7]

Writes BENCHMARKS.md's "Opening the report's 3D view" section. The stock packs are rendered (`mjolnir forge render`), then Chromium (SwiftShader WebGL)
opens `build/report.html#view=<first block>` with a fresh profile each run. The page writes
`performance.now()` at its first drawn view into `body[data-view-ms]`; it is read over the
DevTools protocol (on a pipe, so nothing listens on a port). No virtual time: the clock is
the page's real one.
"""

import fcntl
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402
from sections import replace_section  # noqa: E402

REPO = bench.REPO
CHROMIUM = "/usr/bin/chromium"


class DevTools:
    """Chromium's DevTools protocol over --remote-debugging-pipe (fds 3 and 4, NUL-framed)."""

    def __init__(self, url, profile):
        # Above fd 4, so that placing the child's ends at 3 and 4 overwrites neither.
        high = lambda fd: fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        to_chrome_r, self.to_chrome = map(high, os.pipe())
        self.from_chrome, from_chrome_w = map(high, os.pipe())

        def child_fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--remote-debugging-pipe",
             "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--window-size=1100,760", f"--user-data-dir={profile}", url],
            preexec_fn=child_fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.buffer = b""

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                return reply.get("result", {})

    def close(self):
        self.proc.kill()
        self.proc.wait()


def first_view_ms(url, profile, timeout_s=30):
    tools = DevTools(url, profile)
    try:
        deadline = time.monotonic() + timeout_s
        page = None
        while page is None and time.monotonic() < deadline:
            targets = tools.call("Target.getTargets")["targetInfos"]
            page = next((t for t in targets if t["type"] == "page"), None)
        session = tools.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        while time.monotonic() < deadline:
            value = tools.call("Runtime.evaluate", {"expression": "document.body ? document.body.dataset.viewMs || '' : ''",
                                                    "returnByValue": True}, session)["result"].get("value")
            if value:
                return float(value)
            time.sleep(0.02)
        raise RuntimeError("the view did not appear in time")
    finally:
        tools.close()


def main():
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 7
    mjolnir = REPO / "target/release/mjolnir"
    with tempfile.TemporaryDirectory(prefix="bench-viewer-") as tmp:
        root = Path(tmp)
        bench.workspace(root)
        bench.run([str(mjolnir), "forge", "render"], cwd=root)
        html = (root / "build/report.html").read_text()
        keys = [rest.split('"')[0] for rest in html.split('data-view="')[1:]]
        url = f"file://{root}/build/report.html#view={keys[0]}"
        times = [first_view_ms(url, root / f"profile-{k}") for k in range(runs)]
        figures = {"views": len(keys), "first": keys[0], "runs": runs,
                   "report_kb": round((root / "build/report.html").stat().st_size / 1000),
                   "viewer_kb": round((root / "build/viewer.js").stat().st_size / 1000),
                   "script_kb": round((root / "build" / script_of(html, keys[0])).stat().st_size / 1000),
                   "first_view_ms": times, "median_ms": statistics.median(times)}
    print(json.dumps(figures, indent=2))
    replace_section(SECTION, markdown(figures))


SECTION = "## Opening the report's 3D view"


def script_of(html, key):
    return html.split(f'data-view="{key}" data-src="')[1].split('"')[0]


def markdown(r):
    runs = ", ".join(f"{t:.0f}" for t in sorted(r["first_view_ms"]))
    return f"""{SECTION} (#39)

`python3 tools/bench/viewer.py`: the three stock packs rendered, then headless Chromium
(SwiftShader WebGL, a fresh profile each run) opens `build/report.html#view={r['first']}`.
The time is the page's own clock from the start of loading to its first drawn view
(`performance.now()`, read over the DevTools protocol; no virtual time).

| measure | here | goal |
|---|---|---|
| report to first view (median of {r['runs']}; {runs} ms) | **{r['median_ms']:.0f} ms** | under 2 s |
| the page (`report.html`, {r['views']} views linked) | {r['report_kb']} KB | |
| `viewer.js` (three.js and the viewer, minified) | {r['viewer_kb']} KB | |
| the first block's data (`{r['first'].split('/')[-1]}.view.js`) | {r['script_kb']} KB | loaded when its view opens |
"""

if __name__ == "__main__":
    main()
