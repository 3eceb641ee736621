// Package usps standardizes United States postal addresses by the rules of
// USPS Publication 28 (Postal Addressing Standards): it parses last lines
// (city, state, ZIP Code), rewrites delivery lines with the standard
// abbreviations for street suffixes, directionals and secondary unit
// designators, writes highway-style names as Appendix F does, normalizes
// PO boxes, rural routes, highway contracts, military addresses and the
// address words of Puerto Rico and the Virgin Islands, keeps delivery
// lines within 64 characters, and applies upper or proper casing.
//
// It also holds the tables a postal check needs without a postal database:
// state, territory and military state codes with their names, FIPS codes and
// time zones, and which state each three-digit ZIP Code prefix belongs to, so
// that a ZIP Code that does not belong to its state, or a prefix that is not
// in use, is caught.
//
// Everything here is a pure function of its input: no state, no I/O, safe
// for concurrent use. Standardize is idempotent: standardizing its result
// again changes nothing.
package usps
