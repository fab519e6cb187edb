import Testing
@testable import FaceCamMQTT

/// Home Assistant's ids for camera names: one camera, one id.
struct HomeAssistantDiscoveryTests {
    /// Names Home Assistant allows as they are stay so; others get their characters as _ and the
    /// FNV-1a hash of their bytes (values from Python's arithmetic), so that no two names share an id.
    @Test func namesDifferingInPunctuationOrAccentsGetDifferentIds() {
        #expect(HomeAssistantDiscovery.identifier("hall") == "hall")
        #expect(HomeAssistantDiscovery.identifier("hall_1") == "hall_1")
        #expect(HomeAssistantDiscovery.identifier("hall.1") == "hall_1_3c87d53f")
        #expect(HomeAssistantDiscovery.identifier("hall 1") == "hall_1_c06f0d25")
        #expect(HomeAssistantDiscovery.identifier("Küche") == "K_che_34b78e81")
        #expect(HomeAssistantDiscovery.identifier("Kéche") == "K_che_0083e5d0")
    }
}
