import Testing
@testable import FaceCamMQTT

/// The lines a flood of MQTT command messages may make, with the times written in the test.
struct LineBudgetTests {
    @Test func fiveAtOnceThenOneASecondCountingThoseHeldBack() {
        var budget = LineBudget()
        let burst = (0..<8).map { _ in budget.take(at: 100) }
        #expect(burst == [0, 0, 0, 0, 0, nil, nil, nil])
        #expect(budget.heldBack == 3)
        #expect(budget.take(at: 100.5) == nil)
        #expect(budget.take(at: 101) == 4)  // a second refilled one line, which says four were held back
        #expect(budget.take(at: 101.2) == nil)
        // A quiet minute refills the burst, and no more.
        #expect((0..<6).map { _ in budget.take(at: 161) } == [1, 0, 0, 0, 0, nil])
    }
}
