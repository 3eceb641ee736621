-- Ids, accounts and the other keys compare byte by byte (COLLATE "C"), as
-- the service's ids and cursors do, whatever the database's locale.

-- Letters. Lists walk (account, ...) indexes backwards from the cursor id;
-- metadata, an array of {"key", "value"} objects in order, is filtered by
-- containment.
--
-- Every index that yields letters in id order leads with the account. Were
-- there a btree on id alone, the planner could walk it for a page, skipping
-- other accounts' letters, which costs the whole table when an account's
-- letters are all old. Ids are nonetheless unique across accounts, as the
-- contract says; a hash exclusion constraint enforces that without offering
-- an order.
CREATE TABLE letters (
    account     text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    status      text COLLATE "C" NOT NULL,
    external_id text COLLATE "C" NOT NULL,
    metadata    jsonb NOT NULL,
    created_at  timestamptz NOT NULL,
    modified_at timestamptz NOT NULL,
    -- NULL when no lifecycle step is pending.
    due_at      timestamptz,
    revision    bigint NOT NULL,
    data        bytea NOT NULL,
    CONSTRAINT letters_account_id PRIMARY KEY (account, id),
    CONSTRAINT letters_id_unique EXCLUDE USING hash (id WITH =)
);
CREATE INDEX letters_account_status_id ON letters (account, status, id);
CREATE INDEX letters_account_external_id ON letters (account, external_id, id) WHERE external_id <> '';
CREATE INDEX letters_metadata ON letters USING gin (metadata jsonb_path_ops);
CREATE INDEX letters_due ON letters (due_at, id) WHERE due_at IS NOT NULL;

-- Assets, as letters.
CREATE TABLE assets (
    account     text COLLATE "C" NOT NULL,
    id          text COLLATE "C" NOT NULL,
    metadata    jsonb NOT NULL,
    created_at  timestamptz NOT NULL,
    modified_at timestamptz NOT NULL,
    revision    bigint NOT NULL,
    data        bytea NOT NULL,
    CONSTRAINT assets_account_id PRIMARY KEY (account, id),
    CONSTRAINT assets_id_unique EXCLUDE USING hash (id WITH =)
);
CREATE INDEX assets_metadata ON assets USING gin (metadata jsonb_path_ops);

-- A version belongs to one asset of one account and goes with it.
CREATE TABLE asset_versions (
    id          text COLLATE "C" PRIMARY KEY,
    account     text COLLATE "C" NOT NULL,
    asset_id    text COLLATE "C" NOT NULL,
    status      text COLLATE "C" NOT NULL,
    created_at  timestamptz NOT NULL,
    modified_at timestamptz NOT NULL,
    data        bytea NOT NULL,
    FOREIGN KEY (account, asset_id) REFERENCES assets (account, id) ON DELETE CASCADE
);
CREATE INDEX asset_versions_asset_id ON asset_versions (account, asset_id, id);

-- Content outlives its versions: letters print from it by hash.
CREATE TABLE contents (
    account text COLLATE "C" NOT NULL,
    hash    text COLLATE "C" NOT NULL,
    data    bytea NOT NULL,
    PRIMARY KEY (account, hash)
);

-- Idempotency records, claimed by INSERT ... ON CONFLICT on the key. Times
-- are the service's clock, never the database's.
CREATE TABLE idempotency (
    scope            text COLLATE "C" NOT NULL,
    key              text COLLATE "C" NOT NULL,
    fingerprint      text NOT NULL,
    token            text COLLATE "C" NOT NULL,
    done             boolean NOT NULL,
    result           bytea,
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    lease_expires_at timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_expires_at ON idempotency (expires_at);
