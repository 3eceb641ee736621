package postal

import (
	"slices"
	"strings"
)

// Stage is a position in a letter's life: its status, or once it is
// mailed, the status of its latest tracking event. The values are the
// wire's letter and event statuses.
type Stage string

// The stages of a letter's status.
const (
	Queued       Stage = "queued"
	Ready        Stage = "ready"
	InProduction Stage = "inProduction"
	Mailed       Stage = "mailed"
	Issue        Stage = "issue"
	Canceled     Stage = "canceled"
)

// The stages of a mailed letter: the statuses of its tracking events.
const (
	InTransit            Stage = "inTransit"
	InLocalArea          Stage = "inLocalArea"
	ProcessedForDelivery Stage = "processedForDelivery"
	Delivered            Stage = "delivered"
	ReRouted             Stage = "reRouted"
	ReturnedToSender     Stage = "returnedToSender"
)

// TrackingStages are the statuses of tracking events, in the order the
// docs list them.
var TrackingStages = []Stage{InTransit, InLocalArea, ProcessedForDelivery, Delivered, ReRouted, ReturnedToSender}

// Tracking reports whether st is the status of a tracking event.
func (st Stage) Tracking() bool { return slices.Contains(TrackingStages, st) }

// Outcome is how a letter's postal journey ends, chosen by its recipient's
// nonAddressData (the documented test inputs): "" when it is delivered.
type Outcome string

// The outcomes the test inputs force.
const (
	OutcomeReRouted Outcome = "reRouted"
	OutcomeReturned Outcome = "returnedToSender"
)

// OutcomeOf is the outcome a recipient's nonAddressData forces: the whole
// value, compared without case and surrounding space, names it.
func OutcomeOf(nonAddressData string) Outcome {
	v := strings.TrimSpace(nonAddressData)
	for _, o := range []Outcome{OutcomeReRouted, OutcomeReturned} {
		if strings.EqualFold(v, string(o)) {
			return o
		}
	}
	return ""
}

// successors are the stages that can follow st, the one the letter takes by
// itself first. Cancel is not a step: it is the sender's act, not the
// schedule's.
func successors(st Stage, o Outcome) []Stage {
	switch st {
	case Queued:
		return []Stage{Ready}
	case Ready:
		return []Stage{InProduction}
	case InProduction:
		return []Stage{Mailed}
	case Mailed:
		return []Stage{InTransit}
	case InTransit:
		return []Stage{InLocalArea}
	case InLocalArea:
		if o == OutcomeReRouted {
			return []Stage{ReRouted, ProcessedForDelivery}
		}
		return []Stage{ProcessedForDelivery, ReRouted}
	case ReRouted:
		return []Stage{ProcessedForDelivery}
	case ProcessedForDelivery:
		if o == OutcomeReturned {
			return []Stage{ReturnedToSender, Delivered}
		}
		return []Stage{Delivered, ReturnedToSender}
	}
	return nil // delivered, returnedToSender, issue, canceled: the end
}

// pathTo is the steps from st to target, following the letter's own way
// where it leads there and turning off it only where it must; nil when
// target is not ahead of st.
func pathTo(st, target Stage, o Outcome) []Stage {
	for _, next := range successors(st, o) {
		if next == target {
			return []Stage{next}
		}
		if rest := pathTo(next, target, o); rest != nil {
			return append([]Stage{next}, rest...)
		}
	}
	return nil
}
