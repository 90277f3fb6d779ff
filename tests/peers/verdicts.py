# verdicts.py RESULTS REF CONFIG... [--control NAME]
#
# check-peers' judge: compares each configuration's verdicts with the
# plain reference run REF, per test case, per test module and per
# stress-ng stressor, and prints the per-suite table.  Only the suites'
# own verdicts count:
#   RESULTS/CFG/py.xml   regrtest's --junit-xml: one status per test case
#                        (passed, failure, error, skipped)
#   RESULTS/CFG/py.out   regrtest's output: one verdict per test module
#                        ("passed", "failed (2 errors)", "crashed (Exit
#                        code 1)", "failed (env changed)", ...)
#   RESULTS/CFG/sng/S.rc, S.out   stress-ng's exit status and its
#                        "successful run completed" / "fail:" lines
# A test case, module or stressor whose verdict differs from REF's, or
# that is missing on one side, is a DIFF.  The control (--control) runs a
# subset of modules under a deliberately broken preload and must DIFF.
#
# Flaky tests: a test case whose verdict under a configuration differs
# from the plain run's is run again alone, plain (no preload, no shim
# variable), RERUNS times.  When plain itself gives the configuration's
# verdict at least once, the test decides nothing about the shim: the
# DIFF is dismissed and said as such ("flaky plain"), with its module's.
# Under a sanitizer configuration (asan*) a test case plain never fails
# alone is also run again alone under that configuration (its py.env)
# RERUNS times: a sanitizer slows every process (ASAN's exit unmaps its
# shadow), so a timing-bound test can fail there that plain never fails,
# and plain reruns cannot show it (CPython's
# test_leak_fast_process_del_killed gives a killed child 0.2 s to be
# reaped: it failed once plain at a load of 25, once under
# asan-everything at a load of 6).  Only when every rerun gives the
# plain verdict and leaves no sanitizer report is the DIFF dismissed
# ("flaky under CFG"), the way CPython's own CI re-runs a failed test
# (regrtest --rerun) but stricter: all RERUNS must pass, not one.
# Nothing else is dismissed.
# Exit status: 0 when every CONFIG matches REF and the control differs,
# 1 otherwise, 2 on unusable input (a missing or unparsable result file).
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

MODULE_LINE = re.compile(r"\[\s*\d+/\d+(?:/\d+)?\] (test_\w+) (.+)$")
MAX_LISTED = 40        # DIFF lines printed per configuration
RERUNS = 3             # plain runs of a differing test case
SHIM_VARS = ("LD_PRELOAD", "ADVSHIM_CONFIG", "ADVSHIM_LOG", "ASAN_OPTIONS",
             "UBSAN_OPTIONS")
# regrtest's format_duration(): "1.5 sec", "2 min", "2 min 1 sec",
# "1 hour", "1 hour 2 min", "350 ms".
DURATION = re.compile(r"\s*\((?:\d+ hour(?: \d+ min)?|\d+ min(?: \d+ sec)?"
                      r"|\d+(?:\.\d+)? sec|\d+ ms)\)")


class BadInput(Exception):
    pass


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError as e:
        raise BadInput("%s: %s" % (path, e.strerror))


def module_verdicts(out_path):
    """{module: verdict} from regrtest's progress lines."""
    res = {}
    for line in read(out_path).splitlines():
        m = MODULE_LINE.search(line)
        if not m:
            continue
        verdict = m.group(2).split(" -- ")[0]
        res[m.group(1)] = DURATION.sub("", verdict).strip()
    return res


def case_status(tc):
    for tag in ("error", "failure", "skipped"):
        if tc.find(tag) is not None:
            return tag, (tc.find(tag).get("message") or "").strip()
    return "passed", ""


def case_verdicts(xml_path):
    """{test id: (status, message)} from regrtest's JUnit XML."""
    try:
        root = ET.fromstring(read(xml_path))
    except ET.ParseError as e:
        raise BadInput("%s: %s" % (xml_path, e))
    res = {}
    for tc in root.iter("testcase"):
        name = tc.get("name", "?")
        while name in res:      # the same id twice: keep both
            name += "'"
        res[name] = case_status(tc)
    return res


def module_of(case):
    parts = case.split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "test" else "other"


def stress_verdicts(sng_dir):
    """{stressor: (verdict, bogo ops)} from stress-ng's own output."""
    res = {}
    if not os.path.isdir(sng_dir):
        return res
    for fn in sorted(os.listdir(sng_dir)):
        if not fn.endswith(".rc"):
            continue
        name = fn[:-3]
        rc = read(os.path.join(sng_dir, fn)).strip()
        out = read(os.path.join(sng_dir, name + ".out"))
        fails = [l for l in out.splitlines() if " fail: " in l]
        ok = rc == "0" and "successful run completed" in out and not fails
        ops = "?"
        m = re.search(r"metrc: \[\d+\] %s\s+(\d+)\s" % re.escape(name), out)
        if m:
            ops = m.group(1)
        res[name] = ("passed" if ok else "failed (exit %s%s)" %
                     (rc, ", %d fail: lines" % len(fails) if fails else ""),
                     ops)
    return res


class Config:
    def __init__(self, results, name, partial=False):
        d = os.path.join(results, name)
        self.name = name
        self.partial = partial      # ran a subset: judge only what it ran
        self.modules = module_verdicts(os.path.join(d, "py.out"))
        self.cases = case_verdicts(os.path.join(d, "py.xml"))
        self.stress = stress_verdicts(os.path.join(d, "sng"))


def compare(ref, cfg):
    """[(row, text)]: cfg's differences from ref (a partial cfg: only
    over the modules it ran, no stressors)."""
    diffs = []
    for mod, v in sorted(cfg.modules.items()):
        rv = ref.modules.get(mod, "missing")
        if rv != v:
            diffs.append((mod, "module %s: %s -> %s" % (mod, rv, v)))
    for mod in sorted(set(ref.modules) - set(cfg.modules)):
        if not cfg.partial:
            diffs.append((mod, "module %s: %s -> missing" %
                          (mod, ref.modules[mod])))
    ran = set(cfg.modules)
    names = {n for n in ref.cases if module_of(n) in ran} | set(cfg.cases)
    for n in sorted(names):
        rs, _ = ref.cases.get(n, ("missing", ""))
        cs, msg = cfg.cases.get(n, ("missing", ""))
        if rs != cs:
            diffs.append((module_of(n), "%s: %s -> %s%s" % (
                n, rs, cs, "  [%s]" % msg.splitlines()[0][:150] if msg else "")))
    for s in sorted(set(ref.stress) | set(cfg.stress)):
        if cfg.partial:
            break
        rv = ref.stress.get(s, ("missing", "-"))[0]
        cv = cfg.stress.get(s, ("missing", "-"))[0]
        if rv != cv:
            diffs.append(("stress-ng " + s, "stress-ng %s: %s -> %s" % (s, rv, cv)))
    return diffs


def counts(cfg, mod):
    c = {"passed": 0, "failed": 0, "skipped": 0}
    for n, (s, _) in cfg.cases.items():
        if module_of(n) == mod:
            c["failed" if s in ("failure", "error") else s] += 1
    return "%d/%d/%d" % (c["passed"], c["failed"], c["skipped"])


def table(ref, cfgs, diffs):
    cols = [ref] + cfgs
    mods = sorted(set(ref.modules).union(*(c.modules for c in cfgs)))
    stressors = sorted(set(ref.stress).union(*(c.stress for c in cfgs)))
    width = 18
    print("%-24s" % "suite" + "".join("%-*s" % (width, c.name) for c in cols))
    for mod in mods:
        row = "%-24s" % mod
        for c in cols:
            if mod not in c.modules:
                row += "%-*s" % (width, "-")
                continue
            cell = counts(c, mod)
            if c is not ref:
                cell += " DIFF" if any(m == mod for m, _ in diffs[c.name]) else " OK"
            row += "%-*s" % (width, cell)
        print(row)
    for s in stressors:
        key = "stress-ng " + s
        row = "%-24s" % key
        for c in cols:
            if s not in c.stress:
                row += "%-*s" % (width, "-")
                continue
            v, ops = c.stress[s]
            cell = ("pass %s ops" % ops) if v == "passed" else "FAIL"
            if c is not ref:
                cell += " DIFF" if any(m == key for m, _ in diffs[c.name]) else " OK"
            row += "%-*s" % (width, cell)
        print(row)
    print("(test modules: passed/failed+errors/skipped test cases, judged per "
          "test case and per module against %s)" % ref.name)


_plain_seen = {}


def plain_env():
    """This process's environment without the shim's variables."""
    return {k: v for k, v in os.environ.items() if k not in SHIM_VARS}


def plain_statuses(case):
    """The statuses test case @case gets when run alone, plain, RERUNS
    times (memoised: several configurations may differ on one case)."""
    if case not in _plain_seen:
        _plain_seen[case] = rerun_alone(case, plain_env())[0]
    return _plain_seen[case]


def cfg_env(results, cfg):
    """The environment configuration @cfg ran its suite in (py.env), or
    None when it left none."""
    path = os.path.join(results, cfg.name, "py.env")
    try:
        with open(path) as f:
            extra = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)
    except OSError:
        return None
    env = plain_env()
    env.update(extra)
    return env


def rerun_alone(case, env):
    """The statuses test case @case gets when run alone under @env RERUNS
    times, and whether any run left a sanitizer report (the sanitizers'
    log_path moved into each run's own directory)."""
    seen, report = set(), False
    method = case.rstrip("'").split(".")[-1]
    for _ in range(RERUNS):
        with tempfile.TemporaryDirectory(prefix="advshim-peers-rerun.") as d:
            xml = os.path.join(d, "r.xml")
            e = dict(env)
            for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
                if k in e:
                    e[k] = re.sub(r"log_path=[^:]*", "log_path=" +
                                  os.path.join(d, "san"), e[k])
            subprocess.run([sys.executable, "-m", "test", "--timeout", "200",
                            "--tempdir", d, "--junit-xml", xml,
                            module_of(case), "-m", method],
                           env=e, cwd=d, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=400)
            try:
                got = case_verdicts(xml)
            except BadInput:
                got = {}
            seen.add(got.get(case.rstrip("'"), ("missing", ""))[0])
            report = report or any(n.startswith("san") for n in os.listdir(d))
    return seen, report


def flaky_here(results, cfg, case, rs):
    """Under a sanitizer configuration: does @case give the plain verdict
    @rs in every rerun alone under @cfg's environment, with no sanitizer
    report?  Prints the reruns' outcome either way."""
    if not cfg.name.startswith("asan"):
        return False
    env = cfg_env(results, cfg)
    if env is None:
        return False
    seen, report = rerun_alone(case, env)
    ok = seen == {rs} and not report
    print("peers[%s]: %s: alone under %s %d times: %s%s" % (
        cfg.name, case, cfg.name, RERUNS, ", ".join(sorted(seen)),
        ", a sanitizer report" if report else "") +
        (" (flaky under %s, not counted)" % cfg.name if ok else ""))
    return ok


def dismiss_flaky(ref, cfg, diffs, results):
    """@diffs without the test cases plain itself gives cfg's verdict for
    when run again alone (and their modules' lines, when every differing
    case of a module is dismissed); prints what it dismissed."""
    flaky, keep_mods = set(), set()
    for n in sorted(set(ref.cases) | set(cfg.cases)):
        rs = ref.cases.get(n, ("missing", ""))[0]
        cs = cfg.cases.get(n, ("missing", ""))[0]
        if rs == cs or cfg.partial:
            continue
        seen = plain_statuses(n)
        if cs in seen:
            flaky.add(n)
            print("peers[%s]: flaky plain, not counted: %s: %s here, %s in "
                  "the plain run; alone plain %d times: %s" % (
                      cfg.name, n, cs, rs, RERUNS, ", ".join(sorted(seen))))
        elif flaky_here(results, cfg, n, rs):
            flaky.add(n)
        else:
            keep_mods.add(module_of(n))
    if not flaky:
        return diffs
    out = []
    for row, text in diffs:
        case = text.split(":")[0]
        if case in flaky:
            continue
        if text.startswith("module ") and row not in keep_mods and \
                any(module_of(n) == row for n in flaky):
            continue
        out.append((row, text))
    return out


def main(argv):
    control = None
    if "--control" in argv:
        i = argv.index("--control")
        control = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 3:
        print("usage: verdicts.py RESULTS REF CONFIG... [--control NAME]",
              file=sys.stderr)
        return 2
    results, refname, names = argv[0], argv[1], argv[2:]
    try:
        ref = Config(results, refname)
        cfgs = [Config(results, n) for n in names]
        if control:
            cfgs.append(Config(results, control, partial=True))
    except BadInput as e:
        print("peers: FAILED: unusable result: %s" % e)
        return 2
    if not ref.modules or not ref.cases:
        print("peers: FAILED: the reference run %s produced no verdicts" % refname)
        return 2
    diffs = {c.name: compare(ref, c) for c in cfgs}
    for c in cfgs:
        if c.name != control and diffs[c.name]:
            diffs[c.name] = dismiss_flaky(ref, c, diffs[c.name], results)
    table(ref, cfgs, diffs)
    ok = True
    for c in cfgs:
        if c.name == control:
            continue
        if not c.modules:
            print("peers[%s]: FAILED: no test module verdicts" % c.name)
            ok = False
        for _, d in diffs[c.name][:MAX_LISTED]:
            print("peers[%s]: DIFF %s" % (c.name, d))
        if len(diffs[c.name]) > MAX_LISTED:
            print("peers[%s]: ... and %d more DIFFs (results directory)" %
                  (c.name, len(diffs[c.name]) - MAX_LISTED))
        if diffs[c.name]:
            ok = False
    if control:
        d = diffs[control]
        alone = sorted(set(cfgs[-1].modules) - set(ref.modules))
        if alone:
            print("peers[%s]: FAILED: %s did not run %s: the control has "
                  "nothing to differ from" % (control, refname, " ".join(alone)))
            ok = False
        elif d:
            print("peers[%s]: the broken preload differs, as it must (%d):" %
                  (control, len(d)))
            for _, x in d[:MAX_LISTED]:
                print("peers[%s]:   %s" % (control, x))
        else:
            print("peers[%s]: FAILED: the deliberately broken preload gave the "
                  "same verdicts as %s: this check cannot see a leaked "
                  "descriptor" % (control, refname))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
