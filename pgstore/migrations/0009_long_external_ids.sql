-- A letter's external id may be as long as the real service allows (99,999
-- characters), past what a btree holds of a value (about 2.7 KB, less what
-- compression saves). The index of external ids keeps those of at most
-- 1,000 bytes, as they are, so a list by one walks it in id order; longer
-- ones are keyed by their md5, and a list by one looks the hash up and
-- compares the id itself.
DROP INDEX letters_account_external_id;
CREATE INDEX letters_account_external_id ON letters (account, external_id, id)
    WHERE external_id <> '' AND octet_length(external_id) <= 1000;
CREATE INDEX letters_account_long_external_id ON letters (account, md5(external_id), id)
    WHERE octet_length(external_id) > 1000;
