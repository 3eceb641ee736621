package httpadapter

import (
	"sync"

	"golang.org/x/sync/semaphore"
)

// bodyShares bounds the room of the body budget that the bodies of one
// client address hold at once: half of it. Without it one connection that
// announces a body as large as the budget (a snapshot PUT of 64 MiB) and
// sends nothing holds the whole budget until the body's deadline, some
// seventeen minutes at the default pace, and every other client's bodies
// wait their 10 s and are refused. With it the other half is always left
// to other addresses. A body counts at most a share, in the budget too, so
// a body larger than a share still fits alone; the bodies held at once
// then come to at most twice the budget.
type bodyShares struct {
	share int64
	mu    sync.Mutex
	by    map[string]*addressRoom
}

// addressRoom is the room one client address's bodies hold, and how many
// of its requests hold or wait for some: at none it is forgotten.
type addressRoom struct {
	addr  string
	sem   *semaphore.Weighted
	users int
}

func newBodyShares(budget int64) *bodyShares {
	return &bodyShares{share: max(budget/2, 1), by: map[string]*addressRoom{}}
}

// enter returns addr's room, counting one more request of it.
func (s *bodyShares) enter(addr string) *addressRoom {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.by[addr]
	if a == nil {
		a = &addressRoom{addr: addr, sem: semaphore.NewWeighted(s.share)}
		s.by[addr] = a
	}
	a.users++
	return a
}

// leave counts one request of a's address fewer, once it holds nothing
// of a's room.
func (s *bodyShares) leave(a *addressRoom) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.users--; a.users == 0 {
		delete(s.by, a.addr)
	}
}

// bodyRoom is the room a request's body takes in the body budget, and in
// its address's share when there is one; the zero value takes none.
type bodyRoom struct {
	n    int64
	addr *addressRoom
}
