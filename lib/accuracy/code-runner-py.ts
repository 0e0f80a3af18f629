// The Python programs the sandbox runs (code-sandbox.ts writes them into the
// batch's temporary directory). RUNNER_PY is the parent: it reads job.json,
// runs the generated program once per test as a child process (CHILD_PY) with
// a per-test timeout, compares each result as LiveCodeBench's harness does,
// stops at the first failing test, and writes result.json. Every child runs
// in the same sandbox as the parent (same limits, namespace, uid).
//
// Facts restated from LiveCodeBench's testing_util (not its code):
//   - the program is preceded by star-imports and plain imports of a fixed
//     list of standard modules, and a recursion limit of 50000;
//   - stdin tests: the whole output and the expected output are stripped,
//     split on "\n", each line stripped; the line counts must match and each
//     line is equal as a string, else equal as a list of Decimals (split on
//     whitespace);
//   - functional tests (LeetCode): each input line is JSON, the method
//     `fn_name` of Solution() (or the module function) is called with them;
//     a tuple result counts as a list; the result must == json(output);
//   - the first failing test ends the sample.

/** Modules LiveCodeBench's harness imports (both `from m import *` and `import m`) before every program. */
const PRELUDE_MODULES = [
  'string',
  're',
  'datetime',
  'collections',
  'heapq',
  'bisect',
  'copy',
  'math',
  'random',
  'statistics',
  'itertools',
  'functools',
  'operator',
  'io',
  'sys',
  'json',
];

export const CHILD_PY = String.raw`
import json, sys
MODS = ${JSON.stringify(PRELUDE_MODULES)}
def prelude():
    lines = ["from %s import *" % m for m in MODS + ["builtins", "typing"]]
    lines += ["import %s" % m for m in MODS]
    lines.append("sys.setrecursionlimit(50000)")
    return "\n".join(lines) + "\n\n"

def main():
    mode, code_path, args_path, out_path = sys.argv[1:5]
    with open(code_path, encoding="utf-8") as f:
        code = f.read()
    src = prelude() + code
    if mode == "stdin":
        g = {"__name__": "__main__", "__builtins__": __builtins__}
        try:
            exec(compile(src, "solution.py", "exec"), g)
        except SystemExit:
            pass
        sys.stdout.flush()
        return
    g = {"__name__": "solution", "__builtins__": __builtins__}
    exec(compile(src, "solution.py", "exec"), g)
    with open(args_path, encoding="utf-8") as f:
        spec = json.load(f)
    target = g["Solution"]() if "class Solution" in code and "Solution" in g else None
    fn = getattr(target, spec["fn"], None) if target is not None else g.get(spec["fn"])
    if fn is None:
        sys.exit(3)
    args = [json.loads(line) for line in spec["input"].split("\n")]
    got = fn(*args)
    if isinstance(got, tuple):
        got = list(got)
    ok = got == json.loads(spec["output"])
    with open(out_path, "w") as f:
        f.write("pass" if ok else "wrong")

main()
`;

export const RUNNER_PY = String.raw`
import json, os, resource, signal, subprocess, sys
from decimal import Decimal

def lines_of(s):
    return [l.strip() for l in s.strip().split("\n")]

def decimals(line):
    try:
        return [Decimal(x) for x in line.split()]
    except Exception:
        return None

def stdin_matches(got, want):
    a, b = lines_of(got), lines_of(want)
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        dx, dy = decimals(x), decimals(y)
        if dx is None or dy is None or dx != dy:
            return False
    return True

def set_limits(lim):
    for name, value in lim.items():
        key = getattr(resource, name)
        resource.setrlimit(key, (value, value))

def main():
    job_path, result_path = sys.argv[1:3]
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    # Without an outer prlimit (unsandboxed mode) the limits are set here.
    if job.get("limits"):
        set_limits(job["limits"])
    # A write past RLIMIT_FSIZE then fails with an error instead of killing.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    work = os.path.dirname(os.path.abspath(job_path))
    code_path = os.path.join(work, "solution.py")
    with open(code_path, "w", encoding="utf-8") as f:
        f.write(job["code"])
    child = os.path.join(work, "child.py")
    out_cap = job["outputCap"]
    status, detail, done = "passed", "", 0
    for i, t in enumerate(job["tests"]):
        inp = os.path.join(work, "in.txt")
        outp = os.path.join(work, "out.txt")
        verdict = os.path.join(work, "verdict.txt")
        args = os.path.join(work, "args.json")
        for p in (outp, verdict):
            if os.path.exists(p):
                os.unlink(p)
        with open(inp, "w", encoding="utf-8") as f:
            f.write(t["input"] if job["mode"] == "stdin" else "")
        with open(args, "w", encoding="utf-8") as f:
            json.dump({"fn": job.get("fn"), "input": t["input"], "output": t["output"]}, f)
        argv = [sys.executable, "-I", child, job["mode"], code_path, args, verdict]
        try:
            with open(inp, "rb") as fi, open(outp, "wb") as fo:
                r = subprocess.run(argv, stdin=fi, stdout=fo, stderr=subprocess.DEVNULL,
                                   cwd=work, timeout=job["testTimeoutSec"], start_new_session=True)
        except subprocess.TimeoutExpired:
            status, detail = "timeout", "test %d: time limit exceeded" % i
            break
        except OSError as e:
            status, detail = "error", "test %d: %s" % (i, e)
            break
        if os.path.getsize(outp) > out_cap:
            status, detail = "failed", "test %d: output over %d bytes" % (i, out_cap)
            break
        if r.returncode < 0 and -r.returncode == signal.SIGXCPU:
            status, detail = "timeout", "test %d: CPU time limit exceeded" % i
            break
        if job["mode"] == "stdin":
            if r.returncode not in (0,):
                status, detail = "failed", "test %d: exit status %d" % (i, r.returncode)
                break
            with open(outp, "rb") as f:
                got = f.read().decode("utf-8", "replace")
            if not stdin_matches(got, t["output"]):
                status, detail = "failed", "test %d: wrong answer" % i
                break
        else:
            v = open(verdict).read() if os.path.exists(verdict) else ""
            if v != "pass":
                why = "wrong answer" if v == "wrong" else "runtime error (exit status %d)" % r.returncode
                status, detail = "failed", "test %d: %s" % (i, why)
                break
        done += 1
    with open(result_path, "w") as f:
        json.dump({"status": status, "detail": detail, "testsPassed": done}, f)

main()
`;
