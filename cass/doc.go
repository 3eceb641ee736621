// Package cass simulates the address processing of a postal provider:
// CASS standardization (by USPS Publication 28, package usps), delivery
// point validation (DPV) with its metadata, and the documented test
// addresses whose outcome is fixed (docs/addresses.md), including the NCOA
// test address.
//
// It is pure: the same input always gives the same result, and it keeps
// no state, reads no clock and knows no storage. It owns its value types
// and never imports the lettershop root. Package ncoa keeps the registry
// of moves NCOA follows, which is state, and runs Process after it.
package cass
