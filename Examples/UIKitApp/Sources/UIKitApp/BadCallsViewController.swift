import CrashShield
import UIKit

/// One button per bad call, the kill switch for the container guard, and what happened.
final class BadCallsViewController: UIViewController {
    private let output = UILabel()

    override func viewDidLoad() {
        super.viewDidLoad()
        title = "CrashShield"
        view.backgroundColor = .systemBackground
        let stack = UIStackView()
        stack.axis = .vertical
        stack.spacing = 12
        stack.translatesAutoresizingMaskIntoConstraints = false
        for (index, call) in BadCall.allCases.enumerated() {
            let button = UIButton(type: .system)
            button.setTitle(call.title, for: .normal)
            button.tag = index
            button.addTarget(self, action: #selector(makeBadCall(_:)), for: .touchUpInside)
            stack.addArrangedSubview(button)
        }
        stack.addArrangedSubview(killSwitchRow())
        output.numberOfLines = 0
        output.font = .preferredFont(forTextStyle: .footnote)
        #if DEBUG
        output.text =
            "Debug build: a bad call is reported, then fails as it would without CrashShield. "
            + "Run the Release configuration to see the app recover."
        #else
        output.text = "Release build: a bad call is stopped and reported; the app keeps running."
        #endif
        stack.addArrangedSubview(output)
        view.addSubview(stack)
        NSLayoutConstraint.activate([
            stack.topAnchor.constraint(equalTo: view.safeAreaLayoutGuide.topAnchor, constant: 20),
            stack.leadingAnchor.constraint(equalTo: view.layoutMarginsGuide.leadingAnchor),
            stack.trailingAnchor.constraint(equalTo: view.layoutMarginsGuide.trailingAnchor),
        ])
    }

    /// "Container guard" on/off, as a remote flag would set it.
    private func killSwitchRow() -> UIView {
        let label = UILabel()
        label.text = "Container guard"
        let toggle = UISwitch()
        toggle.isOn = !RemoteFlags.disabledGuards.contains(.container)
        toggle.addTarget(self, action: #selector(containerGuardChanged(_:)), for: .valueChanged)
        return UIStackView(arrangedSubviews: [label, toggle])
    }

    @objc private func containerGuardChanged(_ toggle: UISwitch) {
        RemoteFlags.setGuard(.container, disabled: !toggle.isOn)
        output.text = "Active guards: \(CrashShield.activeGuards.name)"
    }

    @objc private func makeBadCall(_ button: UIButton) {
        let result = BadCall.allCases[button.tag].run()
        let latest = CrashShield.reports.max { $0.lastSeen < $1.lastSeen }
        output.text =
            result + "\n\n"
            + (latest.map { "Reported: \($0.method): \($0.reason) (\($0.occurrences)x)" }
                ?? "Nothing reported (is the guard switched off?)")
    }
}
