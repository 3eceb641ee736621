package lettershop

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/fetchbatch"
	"github.com/lettershop/lettershop/internal/duerun"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// A letter whose printing fetches content from URLs (its version keeps
// the content at a URL, or it has variables of type externalUrl) goes into
// production only once that content has been fetched and checked, as it
// would be printed: a letter is never mailed with content that could not be
// had. Its life facts say so (postal.Facts.Fetch), so a run knows it from
// the facts it reads of every letter, and most letters, which fetch
// nothing, pay nothing more.
//
// A run holds such a letter at ready when its production falls due
// (advance), and stops draining after the batch that held it. Then, outside
// the run's lock and the store's, it fetches what every letter held needs,
// each URL once, in one batch (package fetchbatch: a few fetches at once,
// two of a host at a time, a host that does not answer asked nothing more,
// and no fetch started after runFetchBudget), checks each letter's content,
// and writes the outcome: the letter goes into production (and on, through
// any step due since), stamped when its production fell due; or to issue,
// with a message naming the URL, what failed and what to do. Then the run
// drains on. A letter the batch did not reach stays held for the next run.

// runFetchBudget is how long after a run's batch begins a fetch of it may
// start: a batch ends at most about ExternalFetchTimeout after it, however
// many slow hosts its letters name. It fetches as many URLs at once, and
// of one host, as fetchbatch does by default.
const runFetchBudget = 3 * ExternalFetchTimeout

// runFetchBytes is how many bytes a run's batch holds before no fetch of
// it starts (and at most eight of MaxExternalContent more): one letter's
// content and images at URLs.
const runFetchBytes = MaxExternalContent + MaxLetterExternalContent

// advance takes c's steps due by now, but holds at ready, before
// production, a letter whose printing fetches content: its production is
// left due, for the run to check its content first. A letter that fetches
// nothing pays a flag looked at.
func (lc *lifecycle) advance(c *postal.Course, now time.Time) {
	if c.Facts.Fetch {
		lc.advanceHeld(c, now)
		return
	}
	lc.s.postal.Advance(c, now)
}

// advanceHeld is advance for a letter whose printing fetches content.
func (lc *lifecycle) advanceHeld(c *postal.Course, now time.Time) {
	if c.Status != postal.Queued && c.Status != postal.Ready {
		lc.s.postal.Advance(c, now)
		return
	}
	for c.Status == postal.Queued && !c.Due.IsZero() && !c.Due.After(now) {
		due := c.Due
		lc.s.postal.Advance(c, due)
		if c.Status == postal.Queued && c.Due.Equal(due) {
			return
		}
	}
}

// check fetches and checks the content of the letters pending, noting them
// checked, and writes each one's outcome. It returns how many letters it
// moved.
func (lc *lifecycle) check(ctx context.Context, pending []duerun.Held, checked map[string]bool) int {
	type held struct {
		account string
		l       *Letter
		now     time.Time
	}
	var letters []held
	var urls []string
	for _, p := range pending {
		checked[p.ID] = true
		now := lc.s.now(p.Account)
		l, err := lc.readHeld(ctx, p.Account, p.ID, now)
		if err != nil {
			lc.s.logger.Error("lifecycle: read a letter held for its content", "letter", p.ID, "err", err)
			continue
		}
		if l != nil {
			letters = append(letters, held{p.Account, l, now})
			urls = slices.AppendSeq(urls, printURLs(l))
		}
	}
	got := fetchbatch.Fetch(ctx, urls, lc.s.fetchContent, fetchbatch.Options{
		Budget: runFetchBudget, Down: egress.HostDown, MaxBytes: runFetchBytes,
	})
	fetched := fetchbatch.Answers(got)
	moved := 0
	for _, x := range letters {
		_, _, problem, err := lc.s.printSources(ctx, x.account, x.l, fetched)
		if err == nil {
			err = lc.finishHeld(ctx, x.account, x.l, x.now, problem)
		}
		switch {
		case err == nil:
			moved++
		case errors.Is(err, errUnchanged):
		case errors.Is(err, fetchbatch.ErrNotStarted) || ctx.Err() != nil:
			// Left held, for the next run.
		default:
			lc.s.logger.Error("lifecycle: check a letter's content", "letter", x.l.ID, "err", err)
		}
	}
	return moved
}

// readHeld reads a letter and returns it if it is held before production
// at now, else nil.
func (lc *lifecycle) readHeld(ctx context.Context, account, id string, now time.Time) (*Letter, error) {
	rec, err := lc.s.store.GetLetter(ctx, account, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l, err := letterFromRecord(rec)
	if err != nil {
		return nil, err
	}
	lc.settle(l, now)
	if l.Status != StatusReady || !fetches(l) || l.dueAt.IsZero() || l.dueAt.After(now) {
		return nil, nil
	}
	return l, nil
}

// finishHeld writes the outcome of the check of checked, a letter held
// before production: into production when problem is "" (and through any
// step due since), else at issue saying problem, stamped when its
// production fell due. It is errUnchanged when the letter is no longer
// the one checked (it moved, or was canceled).
func (lc *lifecycle) finishHeld(ctx context.Context, account string, checked *Letter, now time.Time, problem string) error {
	_, err := storage.RetryConflicts(maxRetries, func() (struct{}, error) {
		l, err := lc.readHeld(ctx, account, checked.ID, now)
		if err != nil {
			return struct{}{}, err
		}
		if l == nil || !l.dueAt.Equal(checked.dueAt) {
			return struct{}{}, errUnchanged
		}
		if problem == "" {
			c := courseOf(l)
			lc.s.postal.Advance(c, now)
			applyCourse(c, l)
		} else {
			at, msg := l.dueAt, contentIssuePrefix+problem
			l.IssueMessage = msg
			lc.transition(l, StatusIssue, at, msg)
			if at.After(l.ModifiedAt) {
				l.ModifiedAt = at
			}
		}
		stored, err := lc.s.store.UpdateLetter(ctx, letterRecord(account, l), nil)
		if err != nil {
			return struct{}{}, err
		}
		lc.s.deliveries.made(stored.Deliveries)
		lc.NoteDue(l.dueAt)
		return struct{}{}, nil
	})
	return err
}

// checkToSimulate checks, as a run would, the content of a letter that
// Simulate is to move into production or further: a letter whose content
// can not be fetched goes to issue rather than to target, and the answer
// is a CodeConflict saying why.
func (s *Service) checkToSimulate(ctx context.Context, account, id string, target postal.Stage) error {
	switch target {
	case postal.Queued, postal.Ready, postal.Issue, postal.Canceled:
		return nil
	}
	l, err := s.getLetter(ctx, account, id)
	if err != nil || !fetches(l) || l.Status != StatusQueued && l.Status != StatusReady {
		// An error is modifyLetter's to report.
		return nil
	}
	_, _, problem, err := s.printSources(ctx, account, l, s.fetchContent)
	if err != nil {
		return err
	}
	if problem != "" {
		return s.contentIssue(ctx, account, l, problem)
	}
	return nil
}
