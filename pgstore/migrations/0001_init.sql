-- Ids, accounts and the other keys compare byte by byte (COLLATE "C"), as
-- the service's ids and cursors do, whatever the database's locale.

-- Letters. A page of a list walks an index whose order is (account, id),
-- or (account, something filtered on, id), backwards from the cursor id, so
-- it reads O(log n + page) entries.
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

-- Metadata is kept in order in the jsonb column, an array of {"key",
-- "value"} objects, and each pair is indexed in a table of its own, kept by
-- triggers: (account, pair, id) in id order, so a page of the letters
-- holding a pair walks that index as an unfiltered page walks (account, id).
-- (A GIN index on the jsonb cannot give its matches in id order: a page
-- would cost all the matches, or a walk of the account until the page is
-- full, however far back the pair was used.) The pair is a hash of key and
-- value, which keeps index entries small whatever the lengths; a list
-- confirms every match against the jsonb, so a collision cannot show.
CREATE FUNCTION metadata_pair(key text, value text) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT md5(length(key) || ':' || key || value)::uuid $$;

CREATE TABLE letter_metadata (
    account   text COLLATE "C" NOT NULL,
    pair      uuid NOT NULL,
    letter_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (account, pair, letter_id)
);

CREATE TABLE asset_metadata (
    account  text COLLATE "C" NOT NULL,
    pair     uuid NOT NULL,
    asset_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (account, pair, asset_id)
);

-- metadata_pairs returns the pair hashes of a metadata array.
CREATE FUNCTION metadata_pairs(metadata jsonb) RETURNS uuid[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT coalesce(array_agg(metadata_pair(e->>'key', e->>'value')), '{}') FROM jsonb_array_elements(metadata) AS e $$;

-- The triggers keep the pair tables in step with the rows' metadata: an
-- update removes the pairs that went and adds those that came. (Account and
-- id never change.) The functions run with the search_path of the
-- migration, so a session with another path writing the tables keeps the
-- pairs in step too.
CREATE FUNCTION sync_letter_metadata() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT
    AS $$
DECLARE
    gone uuid[] := CASE WHEN TG_OP = 'INSERT' THEN '{}' ELSE metadata_pairs(OLD.metadata) END;
    came uuid[] := CASE WHEN TG_OP = 'DELETE' THEN '{}' ELSE metadata_pairs(NEW.metadata) END;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM letter_metadata
        WHERE account = OLD.account AND letter_id = OLD.id AND pair = ANY (gone) AND pair <> ALL (came);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO letter_metadata (account, pair, letter_id)
        SELECT NEW.account, p, NEW.id FROM unnest(came) AS p WHERE p <> ALL (gone)
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION sync_asset_metadata() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT
    AS $$
DECLARE
    gone uuid[] := CASE WHEN TG_OP = 'INSERT' THEN '{}' ELSE metadata_pairs(OLD.metadata) END;
    came uuid[] := CASE WHEN TG_OP = 'DELETE' THEN '{}' ELSE metadata_pairs(NEW.metadata) END;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM asset_metadata
        WHERE account = OLD.account AND asset_id = OLD.id AND pair = ANY (gone) AND pair <> ALL (came);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO asset_metadata (account, pair, asset_id)
        SELECT NEW.account, p, NEW.id FROM unnest(came) AS p WHERE p <> ALL (gone)
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER letters_metadata_insert AFTER INSERT ON letters
    FOR EACH ROW WHEN (NEW.metadata <> '[]') EXECUTE FUNCTION sync_letter_metadata();
CREATE TRIGGER letters_metadata_update AFTER UPDATE OF metadata ON letters
    FOR EACH ROW WHEN (OLD.metadata IS DISTINCT FROM NEW.metadata) EXECUTE FUNCTION sync_letter_metadata();
CREATE TRIGGER letters_metadata_delete AFTER DELETE ON letters
    FOR EACH ROW WHEN (OLD.metadata <> '[]') EXECUTE FUNCTION sync_letter_metadata();
CREATE TRIGGER assets_metadata_insert AFTER INSERT ON assets
    FOR EACH ROW WHEN (NEW.metadata <> '[]') EXECUTE FUNCTION sync_asset_metadata();
CREATE TRIGGER assets_metadata_update AFTER UPDATE OF metadata ON assets
    FOR EACH ROW WHEN (OLD.metadata IS DISTINCT FROM NEW.metadata) EXECUTE FUNCTION sync_asset_metadata();
CREATE TRIGGER assets_metadata_delete AFTER DELETE ON assets
    FOR EACH ROW WHEN (OLD.metadata <> '[]') EXECUTE FUNCTION sync_asset_metadata();

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
