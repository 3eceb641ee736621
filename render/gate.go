package render

import "context"

// Gate bounds how many letters render at once. Laying a letter out keeps
// one core busy and holds about fifty times its merged template in memory
// (a template of 1 MiB, some 60 MB), so renders past the cores add no
// speed, only memory: sixteen letters of 1 MiB rendered at once held
// 940 MB. A render waits for a slot as long as its context lets it.
type Gate struct {
	slots chan struct{}
}

// NewGate returns a Gate that lets n renders run at once, at least one.
func NewGate(n int) *Gate {
	return &Gate{slots: make(chan struct{}, max(n, 1))}
}

// Enter takes a slot, waiting for one to be free; it returns ctx's error,
// taking none, when ctx ends first.
func (g *Gate) Enter(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Leave frees the slot Enter took.
func (g *Gate) Leave() { <-g.slots }
