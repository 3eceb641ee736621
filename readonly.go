package lettershop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A client may send back an object as it fetched it, with one field
// changed. The fields the service sets (read-only) of a letter or an asset
// are then accepted when they hold the object's current value and ignored;
// a different value is refused as read-only. A version's are ignored
// whatever they hold (ReadOnlyVersionFields), as the real service's own
// examples send them with values of another version. A writable field
// given with its current value is no change, so never a conflict, whatever
// the object's status. This file holds those comparisons.

// readOnly refuses path unless same: the field is read-only and the value
// given is not the object's.
func readOnly(f fieldErrors, path string, same bool, current string) {
	if !same {
		f.add(path, "%s is read-only: leave it out or send it as fetched (%s)", path, current)
	}
}

func sameString(f fieldErrors, path string, given *string, current string) {
	if given != nil {
		readOnly(f, path, *given == current, fmt.Sprintf("%q", current))
	}
}

// sameTime compares times as instants: the same moment in another offset is
// the same value, and so is the time as an answer showed it (ShownTime).
func sameTime(f fieldErrors, path string, given *time.Time, current time.Time) {
	if given != nil {
		readOnly(f, path, sameInstant(*given, current), ShownTime(current).Format(time.RFC3339))
	}
}

// sameInstant reports whether a time given back is current, or current as
// an answer showed it.
func sameInstant(given, current time.Time) bool {
	return given.Equal(current) || given.Equal(ShownTime(current))
}

func sameInt(f fieldErrors, path string, given *int, current int) {
	if given != nil {
		readOnly(f, path, *given == current, fmt.Sprint(current))
	}
}

// sameJSON reports whether a and b encode to the same JSON: for values
// whose fields are plain data (strings, numbers, booleans, slices, maps).
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// Letters.

// checkLetterReadOnly adds an error for each read-only field of in that
// differs from l's.
func checkLetterReadOnly(f fieldErrors, in UpdateLetterInput, l *Letter) {
	sameString(f, "id", in.ID, l.ID)
	if in.Status != nil {
		readOnly(f, "status", *in.Status == l.Status, string(l.Status))
	}
	sameTime(f, "createdAt", in.CreatedAt, l.CreatedAt)
	sameTime(f, "modifiedAt", in.ModifiedAt, l.ModifiedAt)
	sameString(f, "url", in.URL, l.URL)
	sameString(f, "issueMessage", in.IssueMessage, l.IssueMessage)
	if in.Events != nil {
		readOnly(f, "events", sameEvents(in.Events, l.Events), fmt.Sprintf("the letter's %d events", len(l.Events)))
	}
	if in.Sender != nil {
		checkPartyReadOnly(f, "sender", in.Sender, l.Sender)
	}
	if in.Recipient != nil {
		checkPartyReadOnly(f, "recipient", in.Recipient, l.Recipient)
	}
}

// checkPartyReadOnly compares the address processing results given with a
// party with those of the party stored, whatever else the party changes:
// they are the results of the processing the stored party had.
func checkPartyReadOnly(f fieldErrors, path string, in *PartyInput, p Party) {
	const current = "the letter's"
	if in.AddressComponents != nil {
		var c AddressComponents
		if p.AddressComponents != nil {
			c = *p.AddressComponents
		}
		readOnly(f, path+".addressComponents", *in.AddressComponents == c, current)
	}
	if in.AddressAnalysis != nil {
		readOnly(f, path+".addressAnalysis", p.AddressAnalysis != nil && sameJSON(in.AddressAnalysis, p.AddressAnalysis), current)
	}
	if in.AddressCorrections != nil {
		same := len(in.AddressCorrections) == 0 && len(p.AddressCorrections) == 0 ||
			slices.Equal(in.AddressCorrections, p.AddressCorrections)
		readOnly(f, path+".addressCorrections", same, current)
	}
	if in.AddressMetadata != nil {
		readOnly(f, path+".addressMetadata", p.AddressMetadata != nil && *in.AddressMetadata == *p.AddressMetadata, current)
	}
}

// refuseReadOnlyParty refuses the processing results on a party given to
// create a letter: there is nothing they could be the value of.
func refuseReadOnlyParty(f fieldErrors, path string, in *PartyInput) {
	if in == nil {
		return
	}
	for name, given := range map[string]bool{
		"addressComponents":  in.AddressComponents != nil,
		"addressAnalysis":    in.AddressAnalysis != nil,
		"addressCorrections": in.AddressCorrections != nil,
		"addressMetadata":    in.AddressMetadata != nil,
	} {
		if given {
			f.add(path+"."+name, "%s.%s is read-only: address processing sets it", path, name)
		}
	}
}

// sameEvents compares events given back (a) with the letter's (b) field by
// field, times as instants (sameInstant); details
// without any value are the same as none.
func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || !sameInstant(x.CreatedAt, y.CreatedAt) || !sameInstant(x.ModifiedAt, y.ModifiedAt) ||
			!sameInstant(x.Timestamp, y.Timestamp) || x.Type != y.Type || x.Status != y.Status ||
			x.Description != y.Description || x.OperationCode != y.OperationCode ||
			x.ActionRequired != y.ActionRequired || x.Location != y.Location ||
			!sameDetails(x.TrackingEventDetails, y.TrackingEventDetails) {
			return false
		}
	}
	return true
}

func sameDetails(a, b *TrackingEventDetails) bool {
	var x, y TrackingEventDetails
	if a != nil {
		x = *a
	}
	if b != nil {
		y = *b
	}
	if x.Notes != y.Notes || x.Facility != y.Facility || x.FacilityType != y.FacilityType || x.FacilityZip != y.FacilityZip {
		return false
	}
	if len(x.AdditionalData) == 0 && len(y.AdditionalData) == 0 {
		return true
	}
	return sameJSON(x.AdditionalData, y.AdditionalData)
}

// letterChanges says which mail fields an update changes: a field given
// with the letter's current value is no change.
type letterChanges struct {
	sender, recipient, content, useType, variables, options, sendDate bool
	// opts are the options given, checked and with their defaults.
	opts LetterOptions
}

// mail reports whether any mail field changes.
func (c letterChanges) mail() bool {
	for _, f := range c.fields() {
		if f.on {
			return true
		}
	}
	return false
}

// mailField is a mail field, in the API's spelling, and whether it changed.
type mailField struct {
	on   bool
	name string
}

// fields are the mail fields, each with whether it changed.
func (c letterChanges) fields() [7]mailField {
	return [7]mailField{{c.sender, "sender"}, {c.recipient, "recipient"}, {c.content, "content"},
		{c.variables, "variables"}, {c.options, "options"}, {c.sendDate, "sendDate"}, {c.useType, "useType"}}
}

// names are the mail fields changed, in the API's spelling.
func (c letterChanges) names() string {
	var n []string
	for _, f := range c.fields() {
		if f.on {
			n = append(n, f.name)
		}
	}
	return strings.Join(n, ", ")
}

// changesOf compares the mail fields of in with l's. Options given are
// checked (into f) and compared with their defaults filled, as stored.
func changesOf(in UpdateLetterInput, l *Letter, f fieldErrors) letterChanges {
	var c letterChanges
	c.sender = in.Sender != nil && !sameParty(in.Sender, l.Sender)
	c.recipient = in.Recipient != nil && !sameParty(in.Recipient, l.Recipient)
	c.content = in.Content != nil && *in.Content != l.Content
	c.useType = in.UseType != nil && *in.UseType != l.UseType
	c.variables = in.Variables != nil && !sameVariables(*in.Variables, l.Variables)
	c.sendDate = in.SendDate != nil && *in.SendDate != l.SendDate
	if in.Options != nil {
		c.opts = normalizeOptions(in.Options, f)
		c.options = !sameJSON(c.opts, l.Options)
	}
	return c
}

// sameParty reports whether a party as given is the party stored: its
// address as stored (the last line whole, not in parts), names and data.
func sameParty(in *PartyInput, p Party) bool {
	a := in.Address
	if a.AddressLine1 != p.Address.AddressLine1 || a.AddressLine2 != p.Address.AddressLine2 || a.LastLine != p.Address.LastLine ||
		a.City != "" || a.State != "" || a.ZipCode != "" || a.Plus4Code != "" {
		return false
	}
	if a.Urbanization != "" && (p.AddressComponents == nil || p.AddressComponents.Urbanization != a.Urbanization) {
		return false
	}
	if (in.Individual == nil) != (p.Individual == nil) || in.Individual != nil && shownIndividual(*in.Individual) != *p.Individual {
		return false
	}
	return in.Organization == p.Organization && in.NonAddressData == p.NonAddressData
}

// sameVariables compares variables in order; a nil value (no value) equals
// only a nil value.
func sameVariables(a, b []Variable) bool {
	return slices.EqualFunc(a, b, func(x, y Variable) bool {
		return x.Name == y.Name && (x.Value == nil) == (y.Value == nil) && (x.Value == nil || *x.Value == *y.Value)
	})
}

// Assets and versions.

// checkAssetReadOnly adds an error for each read-only field of in that
// differs from a's.
func checkAssetReadOnly(f fieldErrors, in UpdateAssetInput, a *Asset) {
	sameString(f, "id", in.ID, a.ID)
	if in.Type != nil {
		readOnly(f, "type", *in.Type == a.Type, string(a.Type))
	}
	if in.Status != nil {
		readOnly(f, "status", *in.Status == a.Status, string(a.Status))
	}
	sameInt(f, "versionCount", in.VersionCount, a.VersionCount)
	sameString(f, "publishedVersionId", in.PublishedVersionID, a.PublishedVersionID)
	sameTime(f, "createdAt", in.CreatedAt, a.CreatedAt)
	sameTime(f, "modifiedAt", in.ModifiedAt, a.ModifiedAt)
}

// sameDefinitions compares variable definitions as checked (defaults
// filled) with a version's.
func sameDefinitions(a, b []VariableDefinition) bool {
	return slices.EqualFunc(a, b, func(x, y VariableDefinition) bool {
		return x.Name == y.Name && x.Type == y.Type && x.Behavior == y.Behavior && x.AllowEmpty == y.AllowEmpty &&
			(x.PresetValue == nil) == (y.PresetValue == nil) && (x.PresetValue == nil || *x.PresetValue == *y.PresetValue)
	})
}
