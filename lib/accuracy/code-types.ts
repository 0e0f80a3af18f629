// The shapes of code execution (code-sandbox.ts, code-tests.ts), apart so
// the scoring options can name them without an import cycle.

/** One test of a program: stdin text and expected stdout, or JSON lines of arguments and the JSON result. */
export interface CodeTest {
  input: string;
  output: string;
}

export interface CodeJob {
  code: string;
  tests: readonly CodeTest[];
  /** 'stdin': the program reads stdin and prints; 'functional': `fnName` is called (LeetCode style). */
  mode: 'stdin' | 'functional';
  fnName?: string;
}

export type CodeOutcome = 'passed' | 'failed' | 'timeout' | 'error';

export interface CodeResult {
  status: CodeOutcome;
  detail: string;
  testsPassed: number;
}

export interface CodeExecutionOptions {
  /** Run without the network/PID namespaces when they cannot be made (limits still apply). */
  allowUnsandboxed?: boolean;
  /** Programs run at once (default: the CPU count). */
  workers?: number;
  /** Per-test time limit in seconds (default 60, LiveCodeBench's setting in MLPerf's scripts). */
  testTimeoutSec?: number;
  /** Address-space limit in bytes (default 1 GiB). */
  memoryBytes?: number;
  /** Largest file a program may write, bytes (default 16 MiB). */
  fileSizeBytes?: number;
  /** Processes the sandbox uid may have (default 64). */
  maxProcesses?: number;
  /** Bytes of stdout/stderr read from a batch, and of a test's output, before it counts as failed (default 4 MiB). */
  outputCapBytes?: number;
  /** Python interpreter (default /usr/bin/python3 when present, else python3 on PATH). */
  python?: string;
  /** Called after each program is scored. */
  onProgress?: (done: number, total: number) => void;
}

/** A problem's tests, as code execution needs them. */
export type CodeProblem = Omit<CodeJob, 'code'>;

/** One command of a program's run (a compile, the run itself): argv (no shell) and its own time limit. */
export interface ProgramStep {
  /** What the step is, for the result's detail ('compile', 'run'). */
  name: string;
  argv: string[];
  timeoutSec: number;
  /** The exit statuses that count as success (default [0]). */
  okCodes?: number[];
}

/** A program given as files and the commands that build and run it; it passes when every command exits with an ok status. */
export interface ProgramJob {
  /** File name (in the job's directory) to contents. */
  files: Record<string, string>;
  /**
   * Symbolic links made in the job's directory: relative path to target
   * (e.g. `node_modules/lodash` to the package, so `require('lodash')`
   * resolves as it does beside the reference's evaluator).
   */
  links?: Record<string, string>;
  steps: ProgramStep[];
}
