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
}
