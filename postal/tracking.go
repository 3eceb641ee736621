package postal

import (
	"strings"
	"sync"
	"time"
)

// trackingKind is what a tracking event says, where it is scanned and the
// scan's operation code. Codes are USPS-style three-digit scan codes, fixed
// per event; they are illustrative, not USPS's own table.
type trackingKind struct {
	code           string
	atDestination  bool // scanned in the recipient's area, else the sender's
	deliveryUnit   bool // scanned at the post office, else the processing plant
	actionRequired bool
	description    string
	notes          string
}

var trackingKinds = map[Stage]trackingKind{
	InTransit: {
		code: "919", description: "Departed the origin processing facility",
		notes: "Accepted and sorted at the origin facility; on its way to the destination area",
	},
	InLocalArea: {
		code: "271", atDestination: true, description: "Arrived at the destination processing facility",
		notes: "In the recipient's local area",
	},
	ReRouted: {
		code: "865", atDestination: true, actionRequired: true,
		description: "Re-routed: forwarded to a new address",
		notes:       "The recipient's address on file has changed; update it for future mailings",
	},
	ProcessedForDelivery: {
		code: "918", atDestination: true, deliveryUnit: true, description: "Processed for delivery",
		notes: "Sorted to the carrier's route; delivery is expected today",
	},
	Delivered: {
		code: "960", atDestination: true, deliveryUnit: true, description: "Delivered",
		notes: "Delivered to the recipient's mail receptacle",
	},
	ReturnedToSender: {
		code: "879", atDestination: true, deliveryUnit: true, actionRequired: true,
		description: "Returned to sender: undeliverable as addressed",
		notes:       "The letter could not be delivered and is on its way back to the sender; check the recipient's address",
	},
}

// trackingEvent is c's next event: the tracking scan of reaching st at time at.
func trackingEvent(c *Course, st Stage, at time.Time) Event {
	k := trackingKinds[st]
	p := c.Facts.From
	if k.atDestination {
		p = c.Facts.To
	}
	f := facilities.of(p, k.deliveryUnit)
	return Event{
		N: int(c.Facts.Events), At: at, Tracking: true, Status: st, Description: k.description,
		OperationCode: k.code, ActionRequired: k.actionRequired, Location: f.location,
		Facility: f.Facility, FacilityType: f.FacilityType, FacilityZip: f.FacilityZip, Notes: k.notes,
	}
}

// facilities keeps the facilities made for the places letters went
// through: most letters of a run go from and to places others went, and a
// facility's name and location are strings made of the place's.
var facilities = facilityCache{m: map[facilityKey]placedFacility{}}

// facilityCache is a bounded memo of facilityOf: when full, it starts
// again empty.
type facilityCache struct {
	mu sync.Mutex
	m  map[facilityKey]placedFacility
}

type facilityKey struct {
	place        Place
	deliveryUnit bool
}

// placedFacility is a facility and the location its scans show.
type placedFacility struct {
	facility
	location string
}

const maxFacilities = 4096

func (fc *facilityCache) of(p Place, deliveryUnit bool) placedFacility {
	k := facilityKey{p, deliveryUnit}
	fc.mu.Lock()
	f, ok := fc.m[k]
	fc.mu.Unlock()
	if ok {
		return f
	}
	f.facility = facilityOf(p, deliveryUnit)
	f.location = location(p.City, p.State, f.FacilityZip)
	// The key's strings are the caller's, which may be parts of a larger
	// one: the memo keeps copies of its own.
	k.place = Place{City: strings.Clone(p.City), State: strings.Clone(p.State), Zip: strings.Clone(p.Zip)}
	f.FacilityZip, f.location = strings.Clone(f.FacilityZip), strings.Clone(f.location)
	fc.mu.Lock()
	if len(fc.m) >= maxFacilities {
		clear(fc.m)
	}
	fc.m[k] = f
	fc.mu.Unlock()
	return f
}

// facilityOf names the postal facility serving p: its post office (at p's
// own ZIP code), or the processing and distribution center of its
// three-digit ZIP area (at that area's ZIP code ending in 99). The names
// are made up from the place, in the style of USPS facility names.
func facilityOf(p Place, deliveryUnit bool) facility {
	name := joinNonEmpty(" ", p.City, p.State)
	switch {
	case deliveryUnit && name != "":
		return facility{Facility: name + " POST OFFICE", FacilityType: "Post Office", FacilityZip: p.Zip}
	case deliveryUnit:
		return facility{Facility: "LOCAL POST OFFICE", FacilityType: "Post Office", FacilityZip: p.Zip}
	}
	zip := ""
	if p.Zip != "" {
		zip = p.Zip[:3] + "99"
	}
	if name == "" {
		name = "REGIONAL"
	}
	return facility{
		Facility: name + " PROCESSING AND DISTRIBUTION CENTER", FacilityType: "Processing and Distribution Center", FacilityZip: zip,
	}
}

// location is "CITY, ST 12345", with the parts that are known.
func location(city, state, zip string) string {
	return joinNonEmpty(" ", joinNonEmpty(", ", city, state), zip)
}

// facility is a postal facility: its name, its type and its ZIP code.
type facility struct {
	Facility, FacilityType, FacilityZip string
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}
