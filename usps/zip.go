package usps

import "fmt"

// prefixRanges assigns three-digit ZIP Code prefixes to states. Prefixes
// in no range are not in use.
var prefixRanges = []struct {
	from, to int
	state    string
}{
	{5, 5, "NY"}, {6, 7, "PR"}, {8, 8, "VI"}, {9, 9, "PR"},
	{10, 27, "MA"}, {28, 29, "RI"}, {30, 38, "NH"}, {39, 49, "ME"},
	{50, 54, "VT"}, {55, 55, "MA"}, {56, 59, "VT"}, {60, 69, "CT"},
	{70, 89, "NJ"}, {90, 98, "AE"}, {100, 149, "NY"}, {150, 196, "PA"},
	{197, 199, "DE"}, {200, 200, "DC"}, {201, 201, "VA"}, {202, 205, "DC"},
	{206, 212, "MD"}, {214, 219, "MD"}, {220, 246, "VA"}, {247, 268, "WV"},
	{270, 289, "NC"}, {290, 299, "SC"}, {300, 319, "GA"}, {320, 339, "FL"},
	{340, 340, "AA"}, {341, 342, "FL"}, {344, 344, "FL"}, {346, 347, "FL"},
	{349, 349, "FL"}, {350, 352, "AL"}, {354, 369, "AL"}, {370, 385, "TN"},
	{386, 397, "MS"}, {398, 399, "GA"}, {400, 418, "KY"}, {420, 427, "KY"},
	{430, 459, "OH"}, {460, 479, "IN"}, {480, 499, "MI"}, {500, 516, "IA"},
	{520, 528, "IA"}, {530, 532, "WI"}, {534, 535, "WI"}, {537, 549, "WI"},
	{550, 551, "MN"}, {553, 567, "MN"}, {569, 569, "DC"}, {570, 577, "SD"},
	{580, 588, "ND"}, {590, 599, "MT"}, {600, 620, "IL"}, {622, 629, "IL"},
	{630, 631, "MO"}, {633, 641, "MO"}, {644, 658, "MO"}, {660, 662, "KS"},
	{664, 679, "KS"}, {680, 681, "NE"}, {683, 693, "NE"}, {700, 701, "LA"},
	{703, 708, "LA"}, {710, 714, "LA"}, {716, 729, "AR"}, {730, 731, "OK"},
	{733, 733, "TX"}, {734, 741, "OK"}, {743, 749, "OK"}, {750, 770, "TX"},
	{772, 799, "TX"}, {800, 816, "CO"}, {820, 831, "WY"}, {832, 838, "ID"},
	{840, 847, "UT"}, {850, 853, "AZ"}, {855, 857, "AZ"}, {859, 860, "AZ"},
	{863, 865, "AZ"}, {870, 875, "NM"}, {877, 884, "NM"}, {885, 885, "TX"},
	{889, 891, "NV"}, {893, 895, "NV"}, {897, 898, "NV"}, {900, 908, "CA"},
	{910, 928, "CA"}, {930, 961, "CA"}, {962, 966, "AP"}, {967, 968, "HI"},
	{969, 969, "GU"}, {970, 979, "OR"}, {980, 986, "WA"}, {988, 994, "WA"},
	{995, 999, "AK"},
}

// zip5Ranges are the five-digit ranges inside a shared prefix that belong
// to another state or territory than the prefix's own.
var zip5Ranges = []struct {
	from, to int
	state    string
}{
	{96799, 96799, "AS"},
	{96939, 96940, "PW"},
	{96941, 96944, "FM"},
	{96950, 96952, "MP"},
	{96960, 96960, "MH"},
	{96970, 96970, "MH"},
}

// prefixState is the state of each prefix, "" where the prefix is not used.
var prefixState [1000]string

func init() {
	for _, r := range prefixRanges {
		for p := r.from; p <= r.to; p++ {
			if prefixState[p] != "" {
				panic(fmt.Sprintf("usps: ZIP prefix %03d assigned twice", p))
			}
			prefixState[p] = r.state
		}
	}
}

// StatesOfZIP returns the state a ZIP Code belongs to, from its first three
// digits (and all five where a prefix is shared). It reports false when zip
// does not start with three digits or its prefix is not in use.
func StatesOfZIP(zip string) ([]string, bool) {
	if len(zip) < 3 || !allDigits(zip[:3]) {
		return nil, false
	}
	p := int(zip[0]-'0')*100 + int(zip[1]-'0')*10 + int(zip[2]-'0')
	st := prefixState[p]
	if st == "" {
		return nil, false
	}
	if len(zip) >= 5 && allDigits(zip[:5]) {
		n := p*100 + int(zip[3]-'0')*10 + int(zip[4]-'0')
		for _, r := range zip5Ranges {
			if r.from <= n && n <= r.to {
				return []string{r.state}, true
			}
		}
	}
	return []string{st}, true
}

// PrefixInUse reports whether the first three digits of zip are a ZIP Code
// prefix in use.
func PrefixInUse(zip string) bool {
	_, ok := StatesOfZIP(zip)
	return ok
}

// ZIPMatchesState reports whether ZIP Code zip belongs to state (a code).
func ZIPMatchesState(zip, state string) bool {
	sts, ok := StatesOfZIP(zip)
	if !ok {
		return false
	}
	for _, s := range sts {
		if s == state {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
