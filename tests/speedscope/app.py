#!/usr/bin/env python3
"""Reads what the speedscope app shows for a profile file.

usage: app.py CHROMIUM RELEASE_DIR PROFILE.json OUT.json [SCREENSHOT_PREFIX]

Serves speedscope's prebuilt app (RELEASE_DIR, dist/release of the npm
package) and PROFILE.json from 127.0.0.1 on a free port, opens
index.html#profileURL=... in headless Chromium and drives it through the
DevTools protocol over a pipe (--remote-debugging-pipe: no port, no
websocket library): real mouse clicks on the app's own controls, then the
text of what it rendered, read from the DOM. For every profile of the
profile selector (the title in the toolbar): its name and "Total Weight"
as the selector lists them, and the rows of the Sandwich view's table
(Total, Self, Symbol Name), the whole table (it is a virtual list: it is
scrolled through). Writes them as JSON to OUT.json:

  {"title": ..., "profiles": [{"name", "total", "index", "selected",
    "rows": [{"total", "self", "name", "file"}]}], "console": [...]}

Values are the app's text ("154.00ms (34%)"). With SCREENSHOT_PREFIX it
keeps PREFIX-flamegraph.png (the first profile's Left Heavy view) and
PREFIX-sandwich.png. Exits non-zero, with the reason, when the app shows
no profile. Python's standard library only.
"""
import base64
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

TIMEOUT = 20.0   # seconds for any one thing the app is waited for


class Browser:
    """Headless Chromium, driven over --remote-debugging-pipe (fds 3 and 4:
    NUL-terminated JSON messages)."""

    def __init__(self, chromium, profile_dir, log):
        cmd_r, cmd_w = os.pipe()
        rep_r, rep_w = os.pipe()

        def child():
            os.dup2(cmd_r, 3)
            os.dup2(rep_w, 4)
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--user-data-dir=" + profile_dir,
             # speedscope draws with WebGL: Chromium's software GL
             "--enable-unsafe-swiftshader",
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
             "--remote-debugging-pipe", "--window-size=1280,800", "about:blank"],
            preexec_fn=child, stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=False)
        os.close(cmd_r)
        os.close(rep_w)
        self.w = os.fdopen(cmd_w, "wb", buffering=0)
        self.r = os.fdopen(rep_r, "rb", buffering=0)
        self.buf = b""
        self.last_id = 0
        self.session = None
        self.console = []

    def _message(self):
        while b"\0" not in self.buf:
            chunk = self.r.read(1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe (see its log)")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, browser=False):
        self.last_id += 1
        m = {"id": self.last_id, "method": method, "params": params or {}}
        if self.session and not browser:
            m["sessionId"] = self.session
        self.w.write(json.dumps(m).encode() + b"\0")
        while True:
            r = self._message()
            if r.get("id") == self.last_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"].get("message")))
                return r.get("result", {})
            p = r.get("params", {})
            if r.get("method") == "Runtime.consoleAPICalled":
                self.console.append(p["type"] + ": " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif r.get("method") == "Runtime.exceptionThrown":
                self.console.append("exception: " + p["exceptionDetails"].get(
                    "exception", {}).get("description", p["exceptionDetails"].get("text", "")))

    def attach(self):
        targets = self.send("Target.getTargets", browser=True)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": page["targetId"], "flatten": True},
                                 browser=True)["sessionId"]
        self.send("Runtime.enable")
        self.send("Page.enable")

    def eval(self, expr):
        r = self.send("Runtime.evaluate",
                      {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError("in the page: " + d.get("exception", {}).get("description", d.get("text", "")))
        return r["result"].get("value")

    def wait(self, expr, what):
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            v = self.eval(expr)
            if v:
                return v
            time.sleep(0.05)
        raise RuntimeError("timed out waiting for " + what)

    def click(self, xy):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": xy[0], "y": xy[1],
                                                   "button": "left", "clickCount": 1})

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.send("Browser.close", browser=True)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# The page side. Elements are found by the text the user reads, not by
# speedscope's generated class names.
JS = r"""
window.__ss = {
  // the middle of the element, for a real click there
  at(e) { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; },
  // the smallest element whose whole text is `text`
  byText(text) {
    let best = null;
    for (const e of document.querySelectorAll('body *'))
      if (e.textContent.trim() === text && e.getClientRects().length) best = e;
    return best;
  },
  tabDiv(name) {   // a view tab: an emoji in a span, then the name
    for (const e of document.querySelectorAll('body div'))
      if (e.children.length === 1 && e.children[0].tagName === 'SPAN' && e.textContent.endsWith(name) &&
          e.textContent.length <= name.length + 3)
        return e;
    return null;
  },
  tab(name) { const e = this.tabDiv(name); return e && this.at(e); },
  // the toolbar's title, between the view tabs and Export/Import: the
  // profile's name, with "(i/n)" when there are more
  title() {
    const t = this.tabDiv('Sandwich');
    const bar = t && t.parentElement.parentElement;
    if (!bar) return null;
    if (bar.children.length === 3) {   // more profiles: a span, and the selector
      const e = bar.children[1].querySelector('span');
      return e && e.textContent.trim() ? {text: e.textContent.trim(), xy: this.at(e)} : null;
    }
    // one profile: the name is a text node of the toolbar
    const text = [...bar.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
    return text ? {text, xy: null} : null;
  },
  // the profile selector's rows, when it is open
  selector() {
    const th = [...document.querySelectorAll('th')].find(e => e.textContent.trim() === 'Total Weight');
    if (!th || !th.getClientRects().length) return null;
    return [...th.closest('table').querySelectorAll('tbody tr')].map(tr => ({
      index: tr.cells[0].textContent.trim(), name: tr.cells[1].textContent.trim(),
      total: tr.cells[2].textContent.trim(), xy: this.at(tr)}));
  },
  // the Sandwich view's table: a header row, then a virtual list of rows
  // in a scrolled box; rows are keyed by their place in the whole list
  sandwichBox() {
    const h = this.byText('Symbol Name');
    if (!h) return null;
    let e = h;
    while (e && !(e.querySelector('table') && e.scrollHeight > 0 &&
                  [...e.querySelectorAll('div')].some(d => getComputedStyle(d).overflowY === 'auto')))
      e = e.parentElement;
    if (!e) return null;
    return [...e.querySelectorAll('div')].find(d => getComputedStyle(d).overflowY === 'auto' &&
                                                   d.querySelector('table'));
  },
  rowsInView(box) {
    const top = box.getBoundingClientRect().top - box.scrollTop, out = [];
    for (const tr of box.querySelectorAll('tr')) {
      if (tr.cells.length !== 3) continue;
      out.push({y: Math.round(tr.getBoundingClientRect().top - top),
                total: tr.cells[0].textContent.trim(), self: tr.cells[1].textContent.trim(),
                name: tr.cells[2].textContent.trim(), file: tr.cells[2].title || ''});
    }
    return out;
  },
  frame() { return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); },
  async sandwichRows() {
    const box = this.sandwichBox();
    if (!box) return null;
    const rows = new Map();
    for (box.scrollTop = 0; ; ) {
      await this.frame();
      for (const r of this.rowsInView(box)) rows.set(r.y, r);
      const was = box.scrollTop;
      box.scrollTop += Math.max(box.clientHeight / 2, 20);
      if (box.scrollTop <= was) break;   // at the end
    }
    box.scrollTop = 0;
    await this.frame();
    return [...rows.keys()].sort((a, b) => a - b).map(k => rows.get(k));
  },
};
true
"""


def serve(release, profile):
    """speedscope's files at /, the profile at /profile.json"""
    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path):
            if urllib.parse.urlsplit(path).path == "/profile.json":
                return profile
            return super().translate_path(path)

        def log_message(self, *args):
            pass
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                          functools.partial(Handler, directory=release))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def read_app(b, url, shots):
    b.send("Page.navigate", {"url": url})
    b.wait("document.readyState === 'complete'", "the page to load")
    b.eval(JS)
    # the title appears once the profile is imported and shown
    try:
        title = b.wait("__ss.title() && __ss.title().text", "a profile in the toolbar")
    except RuntimeError as e:
        raise RuntimeError("%s; the page says: %s" % (
            e, b.eval("document.body.innerText.slice(0, 300)").replace("\n", " | ")))
    out = {"title": title, "profiles": []}
    if shots:
        b.click(b.eval("__ss.tab('Left Heavy')"))
        b.eval("__ss.frame()")
        time.sleep(0.3)
        b.screenshot(shots + "-flamegraph.png")
    b.click(b.wait("__ss.tab('Sandwich')", "the Sandwich tab"))
    b.wait("__ss.sandwichBox()", "the Sandwich view's table")
    if not title.endswith(")"):   # one profile: no "(i/n)", no selector
        listed = [{"index": "1", "name": title, "total": None}]
    else:   # the profile selector opens on a click on the title
        b.click(b.eval("__ss.title().xy"))
        listed = b.wait("__ss.selector()", "the profile selector")
    for i, p in enumerate(listed):
        if p["total"] is not None:   # choose it in the selector, which closes
            if not b.eval("__ss.selector()"):
                b.click(b.eval("__ss.title().xy"))
            b.click(b.wait("__ss.selector()", "the profile selector")[i]["xy"])
            b.wait("!__ss.selector() && (__ss.title() || {}).text && __ss.title().text.startsWith(%s)"
                   % json.dumps(p["name"]), "profile %s in the toolbar" % p["name"])
        b.wait("__ss.sandwichBox()", "the Sandwich view's table")
        rows = b.eval("__ss.sandwichRows()")
        out["profiles"].append({"name": p["name"], "total": p["total"], "index": p["index"],
                                "selected": b.eval("__ss.title().text"),
                                "rows": [{k: r[k] for k in ("total", "self", "name", "file")} for r in rows]})
        if i == 0 and shots:
            b.screenshot(shots + "-sandwich.png")
    return out


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__.split("\n\n")[1])
    chromium, release, profile, out_path = sys.argv[1:5]
    shots = sys.argv[5] if len(sys.argv) == 6 else None
    srv = serve(os.path.abspath(release), os.path.abspath(profile))
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    url = "%s/index.html#profileURL=%s" % (base, urllib.parse.quote(base + "/profile.json", safe=""))
    tmp = tempfile.mkdtemp(prefix="speedscope-app.")
    log = open(os.path.join(tmp, "chromium.log"), "w")
    b = Browser(chromium, os.path.join(tmp, "profile"), log)
    # a watchdog: nothing here may hang the test
    timer = threading.Timer(90, b.proc.kill)
    timer.start()
    try:
        b.attach()
        out = read_app(b, url, shots)
        out["console"] = b.console
    except (RuntimeError, OSError, StopIteration, TypeError) as e:
        print("speedscope app: %s" % e, file=sys.stderr)
        for line in b.console[-5:]:
            print("  console: " + line, file=sys.stderr)
        return 1
    finally:
        timer.cancel()
        b.close()
        srv.shutdown()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
