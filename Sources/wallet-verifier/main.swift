import Foundation
import WalletVerifierCommands

let arguments = Array(CommandLine.arguments.dropFirst())
WalletVerifierCommand.prepareProcess(arguments: arguments, environment: ProcessInfo.processInfo.environment)
let code = await WalletVerifierCommand.run(arguments: arguments)
exit(code)
