/**
 * What one sandboxed command may take. Each value is a limit per command; `null` switches that
 * limit off. Defaults: {@link DEFAULT_SANDBOX_LIMITS}.
 */
export interface SandboxLimits {
  /**
   * Bytes of data memory (heap, anonymous writable mappings) each process may allocate
   * (RLIMIT_DATA). Default 2 GiB. Address space merely reserved (V8, Go, the JVM reserve far
   * more than they use) does not count, so runtimes start normally.
   */
  memoryBytes?: number | null;
  /**
   * Processes and threads the command may have at once: a pids cgroup per command when the
   * service may create one (it counts every process of the sandbox, whoever runs it), and
   * RLIMIT_NPROC in any case (the kernel ignores it for root). Default 512.
   */
  processes?: number | null;
  /** CPU seconds each process may use (RLIMIT_CPU: SIGXCPU, then SIGKILL one second later). Default 3,600. */
  cpuSeconds?: number | null;
  /** Largest file, in bytes, a process may write (RLIMIT_FSIZE: SIGXFSZ). Default 8 GiB. */
  fileSizeBytes?: number | null;
}

/** The limits a command gets unless the host configures others. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<Required<SandboxLimits>> = Object.freeze({
  memoryBytes: 2 * 1024 ** 3,
  processes: 512,
  cpuSeconds: 3_600,
  fileSizeBytes: 8 * 1024 ** 3,
});

/** How sandboxed execution is set up; every field has a safe default. */
export interface SandboxOptions {
  /**
   * Path of the bubblewrap executable. Default: `bwrap` found on the service's PATH, else
   * `/usr/bin/bwrap`. Point it at a missing file to simulate a machine without bubblewrap.
   */
  bubblewrapPath?: string;
  /**
   * Extra host paths the sandbox hides (an empty directory or an empty file appears instead), on
   * top of the defaults: home directories, /root, /run, /tmp, /var/tmp, /etc/shadow, /etc/gshadow,
   * /etc/ssh, /etc/sudoers(.d). A path inside the workspace (for example a `.env` file) is hidden
   * from commands too.
   */
  hiddenPaths?: readonly string[];
  /** Host paths to show read-only although a hidden path covers them (for example a toolchain in HOME). */
  readablePaths?: readonly string[];
  /**
   * Show the toolchains under HOME that the project uses (pyenv, nvm, volta, cargo and rustup,
   * go, ~/.local/bin and lib, other `bin` folders on PATH), read-only, found from the service's
   * PATH and the workspace's project files, and set their root variables (PYENV_ROOT, NVM_DIR,
   * CARGO_HOME, RUSTUP_HOME, GOPATH, VOLTA_HOME). Default true; false hides them all.
   */
  detectToolchains?: boolean;
  /**
   * What each command may take (memory, processes, CPU time, file size); a field left out keeps
   * its default ({@link DEFAULT_SANDBOX_LIMITS}). The limits apply to host execution too.
   */
  limits?: SandboxLimits;
}
