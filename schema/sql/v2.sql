-- cordon trace, schema version 2. Applied to an empty database; a version 1
-- trace is brought here by sql/migrate_1_to_2.sql. Later versions arrive as
-- migrations (sql/migrate_N_to_N+1.sql), never by editing this file.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('format', 'cordon-trace');

-- One row per traced command. A trace file may hold many runs: `cordon trace`
-- appends to an existing trace, and `cordon merge` copies runs between files.
CREATE TABLE runs (
  id             INTEGER PRIMARY KEY,
  argv           BLOB NOT NULL,     -- NUL-separated, exactly as given
  cwd            BLOB NOT NULL,
  env_names      TEXT NOT NULL,     -- newline-separated names, never values
  user_name      TEXT NOT NULL,
  uid            INTEGER NOT NULL,
  home           BLOB NOT NULL,
  kernel         TEXT NOT NULL,
  arch           TEXT NOT NULL,
  cordon_version TEXT NOT NULL,
  started_at     INTEGER NOT NULL,  -- Unix time, nanoseconds
  ended_at       INTEGER,           -- NULL while running or after a crash
  state          TEXT NOT NULL CHECK (state IN
                   ('running', 'complete', 'interrupted', 'timeout', 'failed')),
  exit_code      INTEGER,           -- shell convention: 128+N for signal N
  exit_signal    INTEGER,
  sync_wakeup    INTEGER NOT NULL,  -- 1 when SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP was on
  note           TEXT,              -- why the run failed, when it did
  -- 'learn': every watched call recorded; 'audit' (`cordon run --audit`):
  -- only the calls the enforced sandbox refused, each with its errno.
  mode           TEXT NOT NULL DEFAULT 'learn' CHECK (mode IN ('learn', 'audit'))
);

-- Every process seen: the first notification from a thread group creates the
-- row; exec and exit update it. pid is the host pid.
CREATE TABLE processes (
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  pid         INTEGER NOT NULL,
  ppid        INTEGER,
  exe         BLOB,                 -- path of the last exec
  argv        BLOB,                 -- NUL-separated argv of the last exec
  first_seen  INTEGER NOT NULL,     -- ns since run start
  exit_code   INTEGER,              -- NULL when the end was not observed
  exit_signal INTEGER,
  PRIMARY KEY (run_id, pid)
) WITHOUT ROWID;

-- One row per watched system call, in the order the supervisor saw them.
CREATE TABLE events (
  run_id     INTEGER NOT NULL REFERENCES runs(id),
  seq        INTEGER NOT NULL,
  time_ns    INTEGER NOT NULL,      -- since run start
  pid        INTEGER NOT NULL,      -- thread group (process)
  tid        INTEGER NOT NULL,
  syscall    TEXT NOT NULL,
  op         TEXT NOT NULL,         -- operation class, see docs/trace-schema.md
  path       BLOB,                  -- as the program named it
  abs_path   BLOB,                  -- resolved against cwd or dirfd, cleaned
  existed    INTEGER,               -- 1/0: the name existed when called; NULL unknown
  path2      BLOB,                  -- rename/link destination, symlink target
  abs_path2  BLOB,
  existed2   INTEGER,
  flags      INTEGER,               -- open flags, access mode, AT_* or rename flags
  mode       INTEGER,               -- creation mode where the call has one
  fault      TEXT,                  -- why an argument could not be read
  net_family TEXT,                  -- connect: 'inet', 'inet6', 'unix', 'unix-abstract', other
  net_addr   BLOB,                  -- address text, socket path or abstract name
  net_port   INTEGER,
  argv       BLOB,                  -- exec: NUL-separated argv
  errno      INTEGER,               -- learn: the error the supervisor answered with; audit: the error the sandbox gave
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- What cordon's network proxy saw, one row per distinct
-- (kind, proto, name, addr, port, verdict), counted. The proxy sees names
-- (its resolver answered them) and the destinations connections were made
-- to, so a connection is attributed to the name that was looked up.
CREATE TABLE net (
  run_id  INTEGER NOT NULL REFERENCES runs(id),
  seq     INTEGER NOT NULL,
  kind    TEXT NOT NULL CHECK (kind IN ('lookup', 'connect')),
  proto   TEXT NOT NULL CHECK (proto IN ('tcp', 'udp', 'dns')),
  name    TEXT,                  -- the name looked up or attributed; NULL for a bare address
  addr    TEXT,                  -- the real address dialled, when one was
  port    INTEGER,
  verdict TEXT NOT NULL CHECK (verdict IN ('allowed', 'refused')),
  reason  TEXT,                  -- why it was refused
  count   INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
