/// Merchant key files in forms the verifier refuses, for the tests of the errors that say so.
public enum MerchantKeyFiles {
    /// A real PKCS#12 file (throwaway P-256 key, password "fixture"), made with
    /// `openssl pkcs12 -export`.
    public static let pkcs12Base64 = """
        MIIEDAIBAzCCA8IGCSqGSIb3DQEHAaCCA7MEggOvMIIDqzCCAmIGCSqGSIb3DQEHBqCCAlMwggJP
        AgEAMIICSAYJKoZIhvcNAQcBMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAiXQscMzUag
        lQICCAAwDAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEAKAMLA/FycpqnSHjWdgH/eAggHgWsQX
        U7AMwJ7EA/By4mK47Ka6g/3TjzIR9iI+K0/ydSiyJVCetozDRXKa1wkOJi/q0Bz7XFBGhR3AZi0j
        PHgb1Zp8CETiSQr6JwQjgpakWQWU4cXqoBjVTlOKyS0kxjU93w5b617FeG9fH4+GBC5MR83fvfcI
        A4wYz18GF30K5NIB6Jr24s1ASs5bPTUDNFW5yEQi0Fqx82JGatCqaTkejNVd5Qt7PmUO5jIhr9Px
        xbusq8VQDW6TibhZT6VA+2jN4ZBKHBXWCx9XvmRl4Z8Tu+QJeZ3RH25L2ZJ0gi40OUpfbg4lliOq
        QtpiSR8VRophpY+6d2VYZM1xbQNsVhzRB582/z5N2h0fKCXEwzxsk27uLd7vpoBWVY3Bf+V8QOv9
        KPDdPl+ANSOR6qLHX3g0L35T592z2MPBNa/lFS9pN0WnnkFPhjOMmqWgsW0ANDBX//gS/AM1p8n1
        1HNGE4YNdDvD3fWjoq8qgcTU7voH5x8dG3nb9QagTtVvafHNPkiebA++JMAaTBPgDnqmiLDvEq3W
        GbFMpFxq+LDE98Imkl+37YrI6tmxX5x5iKw3TCFkFSl8c6W9/eqZEoueA9n1cw7Ab6hVZA6Q+0bD
        mohWk3IvRKQKlkw1PmJpbl0yofT2MIIBQQYJKoZIhvcNAQcBoIIBMgSCAS4wggEqMIIBJgYLKoZI
        hvcNAQwKAQKgge8wgewwVwYJKoZIhvcNAQUNMEowKQYJKoZIhvcNAQUMMBwECIYQPbB70WjrAgII
        ADAMBggqhkiG9w0CCQUAMB0GCWCGSAFlAwQBKgQQdBS2wKRgmFaQboyWoMXPZASBkL1erCFBdgJG
        APiWfeAEHa7uqS8iQ3oCVCVxdEpb+1SlwLQBoROG9uXn6vyOJNwgRTquFG5Ley/Y3uBJ7V6os7jh
        kydL3Mh3Ls7skFeQmJS6XF2RSGHemWUn+2T242y2OA7/imqKobvTpMLsuCVTRJBZ5NWznhfWSVPC
        8WNCF3FHnvKQb060dVsLsAYb9edLYjElMCMGCSqGSIb3DQEJFTEWBBQjl2pFQSCpH5kmY8rUEPq3
        TuI52jBBMDEwDQYJYIZIAWUDBAIBBQAEIN18rpOOgImqTwvfkpFfa321or6to1gEzQVvdiAsSbnQ
        BAivNgyNGbmLWgICCAA=
        """
}
