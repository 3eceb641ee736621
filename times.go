package lettershop

import "time"

// ShownTime is t as an answer shows it: in UTC, to the second, as the real
// service's reference writes every time (2023-06-07T12:34:56Z). The Service
// keeps its times to the millisecond; a time sent back as an answer showed
// it is the time it shows (sameTime).
func ShownTime(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }
