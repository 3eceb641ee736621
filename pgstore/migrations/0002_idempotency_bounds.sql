-- Bounds on stored idempotency outcomes: each record names the account it
-- counts against and whether its outcome is a failure, so TrimIdempotency
-- can keep an account's newest outcomes, removing failures first. Records
-- stored before have account '' and count as successes; they expire within
-- 24 hours as before.
ALTER TABLE idempotency
    ADD COLUMN account text COLLATE "C" NOT NULL DEFAULT '',
    ADD COLUMN failed boolean NOT NULL DEFAULT false;
CREATE INDEX idempotency_trim ON idempotency (account, failed, created_at DESC, scope, key) WHERE done;
