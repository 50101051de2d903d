/// ISO 3166-1 alpha-2 country codes, the one list every country check in this package reads
/// (`mdoc.issuer.country`, and the `issuing_country` and `nationality` elements of `photoid.elements`).
///
/// Source: ISO 3166-1 officially assigned codes, as current on 2026-11-26 (the 249 codes of the ISO
/// 3166 Maintenance Agency's list; the last additions were BQ, CW, SX in 2010 and SS in 2011).
/// Refused: user-assigned codes (AA, QM–QZ, XA–XZ, ZZ), which name no country and are what test
/// issuers invent ("XX", "ZZ"); exceptionally reserved codes (EU, UK, …); transitionally reserved
/// and deleted codes (AN, CS, YU, …); and anything not two capital letters.
public enum CountryCodes {
    /// The officially assigned ISO 3166-1 alpha-2 codes (249).
    public static let officiallyAssigned: Set<String> = Set(
        """
        AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ
        BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
        CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ
        DE DJ DK DM DO DZ
        EC EE EG EH ER ES ET
        FI FJ FK FM FO FR
        GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY
        HK HM HN HR HT HU
        ID IE IL IM IN IO IQ IR IS IT
        JE JM JO JP
        KE KG KH KI KM KN KP KR KW KY KZ
        LA LB LC LI LK LR LS LT LU LV LY
        MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ
        NA NC NE NF NG NI NL NO NP NR NU NZ
        OM
        PA PE PF PG PH PK PL PM PN PR PS PT PW PY
        QA
        RE RO RS RU RW
        SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ
        TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ
        UA UG UM US UY UZ
        VA VC VE VG VI VN VU
        WF WS
        YE YT
        ZA ZM ZW
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))

    /// Whether `code` is an officially assigned ISO 3166-1 alpha-2 code (exactly, in capitals).
    public static func isAssignedAlpha2(_ code: String) -> Bool {
        officiallyAssigned.contains(code)
    }
}
