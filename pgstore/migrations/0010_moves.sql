-- The NCOA moves registered in each account (POST /_test/moves), so that
-- every server on the database forwards a recipient by the same moves. The
-- key (an address's delivery key and a name) and the move are the
-- service's, kept as bytes: a name may hold what a text column can not.
CREATE TABLE moves (
    account text NOT NULL,
    key bytea NOT NULL,
    move bytea NOT NULL,
    PRIMARY KEY (account, key)
);
