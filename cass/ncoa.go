package cass

import (
	"strings"

	"github.com/lettershop/lettershop/usps"
)

// NCOA finds moved recipients by the address they moved from and their
// name; these keys are how addresses and names compare.

// DeliveryKey is where an address delivers: its delivery line in standard
// form and its ZIP Code.
func DeliveryKey(a usps.Address) string {
	std := usps.Standardize(a, usps.Upper)
	return usps.DeliveryLineOf(std).Format(usps.Upper) + "|" + std.ZIP
}

// NameKey compares names in any case and spacing.
func NameKey(s string) string { return strings.Join(strings.Fields(strings.ToUpper(s)), " ") }
