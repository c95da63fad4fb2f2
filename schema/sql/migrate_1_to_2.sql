-- cordon trace, version 1 → 2: audited runs and network records.

-- 'learn': every watched call was recorded. 'audit' (`cordon run --audit`):
-- the run was enforced, and only calls the sandbox refused were recorded,
-- each with the errno it got.
ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'learn'
  CHECK (mode IN ('learn', 'audit'));

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
