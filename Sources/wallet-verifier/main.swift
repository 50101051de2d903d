import Foundation
import WalletVerifierCommands

let code = await WalletVerifierCommand.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(code)
