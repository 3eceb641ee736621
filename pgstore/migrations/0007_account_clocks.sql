-- The accounts' own clocks (storage.ClockStorage), kept where every server
-- on the database reads them: an account's time is at when the server's
-- clock read anchor, moved on as far as the server's clock since (frozen:
-- at). lead_us is at - anchor in microseconds (NULL when frozen), which the
-- letters' order below uses. stamp is the clock_stamp of the put that wrote
-- the row: a server that read the clocks at one stamp reads only the rows
-- above it.
CREATE TABLE account_clocks (
    account text COLLATE "C" PRIMARY KEY,
    at      timestamptz NOT NULL,
    anchor  timestamptz NOT NULL,
    frozen  boolean NOT NULL,
    lead_us bigint,
    stamp   bigint NOT NULL
);
CREATE INDEX account_clocks_stamp ON account_clocks (stamp);

-- One row: the stamp of the clock put last. A put takes it up by one in its
-- own transaction, holding the row until it commits, so puts commit in the
-- order of their stamps, and a reader that saw stamp n has every row up to
-- n to read.
CREATE TABLE clock_stamp (
    one   boolean PRIMARY KEY DEFAULT true CHECK (one),
    stamp bigint NOT NULL
);
INSERT INTO clock_stamp (stamp) VALUES (0);

-- When a letter falls due on the server's clock, in microseconds since the
-- Unix epoch: due_at less its account's lead, NULL while its account's
-- clock is frozen (only the account's own runs take its letters then). The
-- runs over every account walk this order; a run of one account walks
-- letters_due_by_account. A put of a clock sets its account's letters'
-- due_server; the trigger sets it for every letter written.
ALTER TABLE letters ADD COLUMN due_server bigint;
UPDATE letters SET due_server = (extract(epoch FROM due_at) * 1000000)::bigint WHERE due_at IS NOT NULL;
CREATE INDEX letters_due_server ON letters (due_server, id) WHERE due_server IS NOT NULL;
DROP INDEX letters_due;

CREATE FUNCTION letters_due_server() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    c record;
BEGIN
    IF NEW.due_at IS NULL THEN
        NEW.due_server := NULL;
        RETURN NEW;
    END IF;
    SELECT frozen, lead_us INTO c FROM account_clocks WHERE account = NEW.account;
    IF NOT FOUND THEN
        NEW.due_server := (extract(epoch FROM NEW.due_at) * 1000000)::bigint;
    ELSIF c.frozen THEN
        NEW.due_server := NULL;
    ELSE
        NEW.due_server := (extract(epoch FROM NEW.due_at) * 1000000)::bigint - c.lead_us;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER letters_due_server BEFORE INSERT OR UPDATE OF due_at ON letters
    FOR EACH ROW EXECUTE FUNCTION letters_due_server();
