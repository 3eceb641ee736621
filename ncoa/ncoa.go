package ncoa

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/lettershop/lettershop/cass"
	"github.com/lettershop/lettershop/usps"
)

// Address is an address as given: its lines and, where the caller gave
// them separately, the parts of its last line, which are read when the
// last line can not be.
type Address struct {
	Line1, Line2, LastLine string

	Urbanization, City, State, ZIP, Plus4 string
}

// Read reads a into parts: the last line parsed or, when it can not be
// read, the parts given separately (with the parse's error when those do
// not name a city and a state). Plus4 is the one given when the last line
// has none.
func Read(a Address) (usps.Address, error) {
	out := usps.Address{Line1: a.Line1, Line2: a.Line2, Urbanization: a.Urbanization}
	ll, err := usps.ParseLastLine(a.LastLine)
	if err != nil {
		if a.City == "" || a.State == "" {
			return out, err
		}
		ll = usps.LastLine{City: a.City, State: a.State, ZIP: a.ZIP, Plus4: a.Plus4}
	}
	out.City, out.State, out.ZIP, out.Plus4 = ll.City, ll.State, ll.ZIP, ll.Plus4
	if out.Plus4 == "" {
		out.Plus4 = a.Plus4
	}
	return out, nil
}

// Move is a change of address: whoever is at From (compared after
// standardization: delivery line and ZIP Code), or only the one named
// Name (a person's full name or an organization's, in any case), has
// moved to To.
type Move struct {
	Name     string
	From, To Address
}

// Limits of the registry.
const (
	// MaxMovesPerAccount bounds the moves of one account in the registry.
	// A move registered again for the same address and name
	// replaces the earlier one and does not count twice.
	MaxMovesPerAccount = 1000
	// maxForwardHops bounds the chain of moves followed (A to B, B to C).
	maxForwardHops = 10
)

// ErrFull is the error of Register when the account already holds
// MaxMovesPerAccount moves.
var ErrFull = errors.New("ncoa: the account holds the most moves it can")

// Processor processes addresses: NCOA by its registry of moves, then CASS.
// It is safe for concurrent use. The zero value is not usable: call New.
type Processor struct {
	mu    sync.RWMutex
	moves map[string]map[string]Move
}

// New returns a Processor with no moves registered.
func New() *Processor {
	return &Processor{moves: map[string]map[string]Move{}}
}

// moveKey finds a move: the delivery key (cass.DeliveryKey) moved from,
// and the name the move is limited to ("" for everyone there).
func moveKey(from, name string) string { return from + "\x00" + name }

// Key is what m is kept under among an account's moves: a move with the
// key of another replaces it. Its From must be readable (Read).
func Key(m Move) (string, error) {
	from, err := Read(m.From)
	if err != nil {
		return "", fmt.Errorf("ncoa: a move's key: from: %w", err)
	}
	return moveKey(cass.DeliveryKey(from), cass.NameKey(m.Name)), nil
}

// Stored is m as a store keeps it, under Key(m); ReadStored reads it back.
func Stored(m Move) []byte {
	b, _ := json.Marshal(m) // strings only
	return b
}

// ReadStored reads the moves a store keeps, by their keys.
func ReadStored(stored map[string][]byte) (map[string]Move, error) {
	moves := make(map[string]Move, len(stored))
	for k, raw := range stored {
		var m Move
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("ncoa: a stored move: %w", err)
		}
		moves[k] = m
	}
	return moves, nil
}

// Register adds m to the account's moves, replacing one from the same
// address for the same name. Its From must be readable (Read); the caller
// checks what else makes a move usable. It is ErrFull when the account
// already holds MaxMovesPerAccount other moves.
func (p *Processor) Register(account string, m Move) error {
	key, err := Key(m)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	reg := p.moves[account]
	if reg == nil {
		reg = map[string]Move{}
		p.moves[account] = reg
	}
	if _, exists := reg[key]; !exists && len(reg) >= MaxMovesPerAccount {
		return ErrFull
	}
	reg[key] = m
	return nil
}

// Forget removes every move of the account.
func (p *Processor) Forget(account string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.moves, account)
}

// testForward is where the NCOA test address forwards to.
var testForward = Address{Line1: cass.NCOATestForward[0], LastLine: cass.NCOATestForward[1]}

// forwarding returns the address req's party has moved to, if it has: the
// NCOA test address's, or by the account's moves, followed from move to
// move (a move for the party's organization or name first, then one for
// everyone). read and readErr are req's address as Read reads it, which
// the caller has already done.
func (p *Processor) forwarding(req *Request, read usps.Address, readErr error) (Address, bool) {
	if cass.TestKey(req.Address.Line1) == cass.NCOATestLine {
		return testForward, true
	}
	reg := req.Moves
	if reg == nil {
		p.mu.RLock()
		defer p.mu.RUnlock()
		reg = p.moves[req.Account]
	}
	if len(reg) == 0 {
		return req.Address, false
	}
	names := make([]string, 0, 3)
	if req.Organization != "" {
		names = append(names, cass.NameKey(req.Organization))
	}
	if req.Individual != "" {
		names = append(names, cass.NameKey(req.Individual))
	}
	names = append(names, "")
	current, moved := req.Address, false
	seen := map[string]bool{}
	for hop := 0; hop < maxForwardHops; hop++ {
		addr, err := read, readErr
		if hop > 0 {
			addr, err = Read(current)
		}
		if err != nil {
			break
		}
		from := cass.DeliveryKey(addr)
		if seen[from] {
			break
		}
		seen[from] = true
		m, ok := lookup(reg, from, names)
		if !ok {
			break
		}
		current, moved = m.To, true
	}
	return current, moved
}

// lookup finds the move from from for the first of names that has one.
func lookup(reg map[string]Move, from string, names []string) (Move, bool) {
	for _, n := range names {
		if m, ok := reg[moveKey(from, n)]; ok {
			return m, true
		}
	}
	return Move{}, false
}
