print("wallet-verifier")
