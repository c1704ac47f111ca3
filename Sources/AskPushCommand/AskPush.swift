import ArgumentParser
import PushKitFreeCLI
import PushKitFreeCore

/// `ask-push`: asks a question on the phone through `register-apns serve` and prints the answer.
struct AskPush: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask-push",
        abstract: "Ask a question on the phone and print the answer: a choice's id or the typed text.",
        usage: """
            ask-push --title <text> --choice <id=title> ... [options]
            ask-push --title <text> --reply [--placeholder <text>] [--button <text>] [options]
            """,
        discussion: """
            Asks through register-apns serve (POST /v1/questions): the phone shows the question with its \
            buttons (or a text field with --reply), and the answer comes back to serve. ask-push waits for it \
            and prints the chosen id, or the typed text, and a newline on standard output; nothing else goes \
            there. In a script:
              choice=$(ask-push --title "Deploy to production?" --choice deploy=Deploy --choice cancel=Cancel)
            Treat anything but exit 0 as "no": expiry, cancelling and every failure leave stdout empty. While \
            it waits, a restart of serve is waited out (the question is kept) until a little after the question \
            expires. SIGINT or SIGTERM cancels the question (its buttons are withdrawn from the phone) before \
            ask-push exits.
            Settings: endpoint (--endpoint, PUSHKIT_ENDPOINT) and endpoint_secret_file (--secret-file, \
            PUSHKIT_ENDPOINT_SECRET_FILE), serve's URL and the file holding its secret; ca_file and proxy as for \
            send-push.
            Exit: 0 answered, 2 expired (nobody answered in time), 3 cancelled, 64 usage, 65 the question or an \
            answer refused as bad data, 69 serve unreachable (or the push reached no device), 75 temporary \
            failure, 78 configuration (a missing setting, a refused secret), 130/143 interrupted (SIGINT/SIGTERM).
            """,
        version: PushKitFree.version
    )

    /// The name messages start with.
    static let tool = "ask-push"

    @Option(help: ArgumentHelp("The question, the notification's title.", valueName: "text"))
    var title: String

    @Option(help: ArgumentHelp("A line or two under the title.", valueName: "text"))
    var body: String?

    @Option(
        help: ArgumentHelp(
            "A button: the id printed when it is tapped, and its text; 1 to 4 of them (ids: A-Z a-z 0-9 _ . -).",
            valueName: "id=title"))
    var choice: [QuestionChoice] = []

    @Option(help: ArgumentHelp("Show the choice with this id as destructive (red).", valueName: "id"))
    var destructive: [String] = []

    @Option(
        help: ArgumentHelp(
            "The choice with this id counts only once the phone is unlocked (Face ID, passcode).", valueName: "id"))
    var authenticate: [String] = []

    @Flag(help: "Ask for a typed answer instead of buttons; the text is printed.")
    var reply = false

    @Option(help: ArgumentHelp("The text field's placeholder (with --reply).", valueName: "text"))
    var placeholder: String?

    @Option(help: ArgumentHelp("The send button's text (with --reply).", valueName: "text"))
    var button: String?

    @Option(help: ArgumentHelp("Ask this device only (an id from register-apns list).", valueName: "id"))
    var device: String?

    @Option(help: ArgumentHelp("Ask this group's devices only.", valueName: "name"))
    var group: String?

    @Option(
        help: ArgumentHelp(
            "Seconds until the question expires unanswered (1 to 86400).", valueName: "seconds"))
    var timeout: Int = QuestionSpecification.defaultTimeout

    @Option(help: ArgumentHelp("How the notification interrupts. Default: normal.", valueName: "urgency"))
    var urgency: Urgency?

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Seal the question with each device's content key. Default: serve's config (encrypt)."))
    var encrypt: Bool?

    @Flag(
        help:
            "Print the question's whole final status (JSON) instead of the answer alone; with --no-wait, serve's answer to the question (id, expires_at, devices)."
    )
    var json = false

    @Flag(name: .customLong("no-wait"), help: "Print the question's id and exit without waiting for the answer.")
    var noWait = false

    @OptionGroup var file: ConfigFileOption
    @OptionGroup(title: "Endpoint") var endpointOptions: EndpointOptions

    /// The question the options ask.
    var specification: QuestionSpecification {
        let answers: QuestionSpecification.Answers =
            reply
            ? .reply(placeholder: placeholder, button: button)
            : .choices(
                choice.map { choice in
                    var marked = choice
                    marked.destructive = destructive.contains(choice.id)
                    marked.authenticationRequired = authenticate.contains(choice.id)
                    return marked
                })
        var specification = QuestionSpecification(title: title, body: body, answers: answers)
        specification.audience = device.map { .device($0) } ?? group.map { .group($0) } ?? .everyDevice
        specification.timeout = timeout
        specification.urgency = urgency
        specification.encrypt = encrypt
        return specification
    }

    func validate() throws {
        if reply, !choice.isEmpty { throw ValidationError("--reply and --choice cannot be used together") }
        if !reply, placeholder != nil || button != nil {
            throw ValidationError("--placeholder and --button go with --reply")
        }
        if !reply, choice.isEmpty {
            throw ValidationError("give the answers: --choice ID=TITLE (1 to 4 times), or --reply for a typed one")
        }
        if device != nil, group != nil { throw ValidationError("--device and --group cannot be used together") }
        if reply, !(destructive.isEmpty && authenticate.isEmpty) {
            throw ValidationError("--destructive and --authenticate mark choices; --reply has none")
        }
        for id in destructive + authenticate where !choice.contains(where: { $0.id == id }) {
            let flag = destructive.contains(id) ? "--destructive" : "--authenticate"
            throw ValidationError(
                "\(flag) \(TerminalText.field(id)) names no --choice; the ids are "
                    + choice.map { TerminalText.field($0.id) }.joined(separator: ", "))
        }
        if let problem = specification.problem(naming: Self.flag) { throw ValidationError(problem) }
    }

    /// The flag that sets `setting`.
    static func flag(_ setting: QuestionSpecification.Setting) -> String {
        switch setting {
        case .title: "--title"
        case .timeout: "--timeout"
        case .choice: "--choice"
        case .reply: "--reply"
        case .device: "--device"
        case .group: "--group"
        }
    }

    func run() throws {
        let status = AskRun.report(tool: Self.tool) {
            let configuration = try ToolSupport.configuration(
                ConfigurationFlags(file, endpointOptions), tool: Self.tool)
            return try AskRun(configuration: configuration, tool: Self.tool)
                .ask(specification, printing: noWait ? (json ? .asked : .id) : json ? .status : .answer)
        }
        guard status == 0 else { throw ExitCode(status) }
    }
}

/// `ask-push`'s entry point: the pushkit-free program runs it when called by that name.
package enum AskPushTool {
    package static func main() { AskPush.mainEscapingMessages() }
}
