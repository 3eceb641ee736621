package lettershop

import "time"

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

var trackingKinds = map[stage]trackingKind{
	stageInTransit: {
		code: "919", description: "Departed the origin processing facility",
		notes: "Accepted and sorted at the origin facility; on its way to the destination area",
	},
	stageInLocalArea: {
		code: "271", atDestination: true, description: "Arrived at the destination processing facility",
		notes: "In the recipient's local area",
	},
	stageReRouted: {
		code: "865", atDestination: true, actionRequired: true,
		description: "Re-routed: forwarded to a new address",
		notes:       "The recipient's address on file has changed; update it for future mailings",
	},
	stageProcessedForDelivery: {
		code: "918", atDestination: true, deliveryUnit: true, description: "Processed for delivery",
		notes: "Sorted to the carrier's route; delivery is expected today",
	},
	stageDelivered: {
		code: "960", atDestination: true, deliveryUnit: true, description: "Delivered",
		notes: "Delivered to the recipient's mail receptacle",
	},
	stageReturnedToSender: {
		code: "879", atDestination: true, deliveryUnit: true, actionRequired: true,
		description: "Returned to sender: undeliverable as addressed",
		notes:       "The letter could not be delivered and is on its way back to the sender; check the recipient's address",
	},
}

// trackingEvent is c's next event: the tracking scan of reaching st at time at.
func trackingEvent(c *course, st stage, at time.Time) Event {
	k := trackingKinds[st]
	p := c.life.From
	if k.atDestination {
		p = c.life.To
	}
	f := facilityOf(p, k.deliveryUnit)
	f.Notes = k.notes
	e := newEvent(c.id, c.life.Events, at, eventTracking, EventStatus(st), k.description)
	e.TrackingEventDetails = &f
	e.OperationCode = k.code
	e.ActionRequired = k.actionRequired
	e.Location = location(p.City, p.State, f.FacilityZip)
	return e
}

// facilityOf names the postal facility serving p: its post office (at p's
// own ZIP code), or the processing and distribution center of its
// three-digit ZIP area (at that area's ZIP code ending in 99). The names
// are made up from the place, in the style of USPS facility names.
func facilityOf(p place, deliveryUnit bool) TrackingEventDetails {
	name := joinNonEmpty(" ", p.City, p.State)
	switch {
	case deliveryUnit && name != "":
		return TrackingEventDetails{Facility: name + " POST OFFICE", FacilityType: "Post Office", FacilityZip: p.Zip}
	case deliveryUnit:
		return TrackingEventDetails{Facility: "LOCAL POST OFFICE", FacilityType: "Post Office", FacilityZip: p.Zip}
	}
	zip := ""
	if p.Zip != "" {
		zip = p.Zip[:3] + "99"
	}
	if name == "" {
		name = "REGIONAL"
	}
	return TrackingEventDetails{
		Facility: name + " PROCESSING AND DISTRIBUTION CENTER", FacilityType: "Processing and Distribution Center", FacilityZip: zip,
	}
}

// location is "CITY, ST 12345", with the parts that are known.
func location(city, state, zip string) string {
	return joinNonEmpty(" ", joinNonEmpty(", ", city, state), zip)
}
