// Package postal simulates the postal world a letter goes through once it
// is accepted: processing, production and mailing on business days, then
// the tracking scans of the mail stream up to delivery, a re-route or a
// return to sender, with US federal holidays observed.
//
// It is pure: it reads no clock and keeps no state (beyond a memo of each
// year's holidays). Given a letter's facts
// (a [Course]) and a time, [Timeline] says what happens next and when, so
// every server and every catch-up computes the same history. It owns its
// value types and never imports the lettershop root, which maps its
// letters to and from a Course and uses Timeline as the default behind an
// interface a real postal provider can replace.
package postal
