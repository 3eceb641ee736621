package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/snapshot"
	"github.com/lettershop/lettershop/storage"
)

// --seed FILE starts the server from a fixture: snapshots as
// GET /_test/snapshot answers them, each restored with its ids into the
// account it was taken from. A snapshot names its account, and the API
// key it was taken with reaches that account again: in the sandbox the
// account of a key is a digest of the key (httpadapter.SandboxAccount), so
// the same sk_test_ key finds the records; with --api-key, the key's
// ACCOUNT. A fixture taken with a key the server will not take is refused
// at start, as nobody could reach what it seeds.

// readSeed reads and checks the fixture of --seed against the rest of
// cfg: a server that cannot start from it says why before it opens
// anything.
func readSeed(cfg config) ([]*snapshot.Snapshot, error) {
	if !cfg.testClock {
		return nil, errors.New("--seed: needs --test-clock: a snapshot holds its account's clock, and only a test clock can be set to it")
	}
	snaps, err := snapshot.ReadFixture(cfg.seed)
	if err != nil {
		return nil, fmt.Errorf("--seed %s: %w", cfg.seed, err)
	}
	var accounts []string
	for _, k := range cfg.apiKeys {
		accounts = append(accounts, k.Account)
	}
	for i, s := range snaps {
		field := "account"
		if len(snaps) > 1 {
			field = fmt.Sprintf("[%d].account", i)
		}
		switch {
		case len(accounts) > 0 && !slices.Contains(accounts, s.Account):
			return nil, fmt.Errorf("--seed %s: %s: %q is the account of no --api-key (%s): no key would reach what it seeds",
				cfg.seed, field, s.Account, strings.Join(accounts, ", "))
		case len(accounts) == 0 && !sandboxAccount(s.Account):
			return nil, fmt.Errorf("--seed %s: %s: %q is no sandbox key's account (acct_ and 24 hex digits): it was taken on a server with --api-key; "+
				"start this one with the key of that account", cfg.seed, field, s.Account)
		}
	}
	return snaps, nil
}

// sandboxAccount reports whether account has the form of a sandbox key's
// account (httpadapter.SandboxAccount): acct_ and 24 hex digits.
func sandboxAccount(account string) bool {
	rest, ok := strings.CutPrefix(account, "acct_")
	return ok && len(account) == len(httpadapter.SandboxAccount("")) &&
		!strings.ContainsFunc(rest, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') })
}

// seedStart is where the test clock starts: at the earliest snapshot's
// time when there are snapshots, so that each account's clock can be set
// forward to its own, and a seeded server starts as its fixture was
// taken whenever it runs; at now otherwise.
func seedStart(snaps []*snapshot.Snapshot, now time.Time) time.Time {
	if len(snaps) == 0 {
		return now.Truncate(time.Second)
	}
	start := snaps[0].Clock.Now
	for _, s := range snaps[1:] {
		if s.Clock.Now.Before(start) {
			start = s.Clock.Now
		}
	}
	return start.UTC().Truncate(time.Millisecond)
}

// seeded is what seeding did to one account.
type seeded struct {
	account                   string
	assets, letters, webhooks int
	clock                     time.Time
	// kept: the account had records already and was left as it was.
	kept bool
}

// seed restores each snapshot into its account, with its ids, earliest
// clock first (a shared clock only goes forward). An account that has
// records already (a PostgreSQL database seeded by an earlier start, or
// by another server of the database) is left as it is: its records may
// have moved on since, and they are the state to go on from.
func seed(ctx context.Context, svc *lettershop.Service, st storage.Storage, snaps []*snapshot.Snapshot, shared bool) ([]seeded, error) {
	order := slices.Clone(snaps)
	slices.SortStableFunc(order, func(a, b *snapshot.Snapshot) int { return a.Clock.Now.Compare(b.Clock.Now) })
	var out []seeded
	for _, s := range order {
		r := seeded{account: s.Account, assets: len(s.Assets), letters: len(s.Letters), webhooks: len(s.Webhooks)}
		has, err := hasRecords(ctx, st, s.Account)
		if err != nil {
			return nil, fmt.Errorf("--seed: account %s: %w", s.Account, err)
		}
		if !has {
			_, err = svc.RestoreAccount(ctx, s.Account, s, lettershop.RestoreOptions{KeepIDs: true, SharedClock: shared})
			// Another server of the database may have seeded it since.
			if err != nil && lettershop.ErrorCode(err) == lettershop.CodeConflict {
				if again, herr := hasRecords(ctx, st, s.Account); herr == nil && again {
					has, err = true, nil
				}
			}
			if err != nil {
				return nil, fmt.Errorf("--seed: account %s: %w", s.Account, err)
			}
		}
		r.kept = has
		r.clock = svc.AccountNow(s.Account)
		out = append(out, r)
	}
	// A shared clock went on to the latest snapshot's: every account's
	// time is that, not where the clock stood when its own was restored.
	for i := range out {
		if shared {
			out[i].clock = svc.Now()
		}
	}
	return out, nil
}

// hasRecords reports whether the account has a letter, an asset or a
// webhook.
func hasRecords(ctx context.Context, st storage.Storage, account string) (bool, error) {
	ls, err := st.ListLetters(ctx, storage.LetterQuery{Account: account, Limit: 1, Brief: true})
	if err != nil || len(ls) > 0 {
		return len(ls) > 0, err
	}
	as, err := st.ListAssets(ctx, storage.AssetQuery{Account: account, Limit: 1})
	if err != nil || len(as) > 0 {
		return len(as) > 0, err
	}
	ws, err := st.ListWebhooks(ctx, storage.WebhookQuery{Account: account, Limit: 1})
	return len(ws) > 0, err
}

// greetSeed tells what the seed did, a line per account.
func greetSeed(w io.Writer, path string, done []seeded) {
	fmt.Fprintf(w, "Seed: %s\n", path)
	for _, s := range done {
		if s.kept {
			fmt.Fprintf(w, "  account %s has records already: left as it is (clock %s)\n", s.account, s.clock.Format(time.RFC3339Nano))
			continue
		}
		fmt.Fprintf(w, "  account %s: %s, %s, %s restored (clock %s)\n",
			s.account, count(s.assets, "asset"), count(s.letters, "letter"), count(s.webhooks, "webhook"), s.clock.Format(time.RFC3339Nano))
	}
}

// count is n things: 1 letter, 2 letters.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// logSeed is greetSeed for a JSON log: a line per account.
func logSeed(logger *slog.Logger, path string, done []seeded) {
	for _, s := range done {
		if s.kept {
			logger.Info("seed left an account as it is: it has records already", "seed", path, "account", s.account, "clock", s.clock)
			continue
		}
		logger.Info("seeded", "seed", path, "account", s.account, "assets", s.assets, "letters", s.letters, "webhooks", s.webhooks, "clock", s.clock)
	}
}
