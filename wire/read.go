package wire

import (
	"encoding/json"

	"github.com/lettershop/lettershop"
)

// ReadLetter reads a letter as the API shows it (as Letter writes it),
// every field present and null where empty, into the Go form. Tracking
// details without any value, as status events show them, are read as none,
// so a letter written and read back is the letter it was.
func ReadLetter(b []byte) (*lettershop.Letter, error) {
	var l lettershop.Letter
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, err
	}
	for i, e := range l.Events {
		if d := e.TrackingEventDetails; d != nil && len(d.AdditionalData) == 0 {
			d.AdditionalData = nil
			if d.Notes == "" && d.Facility == "" && d.FacilityType == "" && d.FacilityZip == "" {
				l.Events[i].TrackingEventDetails = nil
			}
		}
	}
	return &l, nil
}
