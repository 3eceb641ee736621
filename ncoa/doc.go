// Package ncoa is the built-in address processor of lettershop below its
// domain: a registry of moves, per account, that NCOA (the National Change
// of Address service) forwards recipients by, and Processor, which runs
// NCOA and then CASS (package cass) on one address and says what each
// changed.
//
// Package cass is pure; the registry is state, kept in memory behind a
// lock, and so lives here. Like cass it reads no clock and knows no
// storage. It owns its value types and never imports the lettershop root,
// whose built-in AddressProcessor maps a party to a Request and a Result
// back, and checks a move against the API's limits before Register takes
// it.
package ncoa
