/// What live's people panel (the page of `live --serve --recognize`) reads and changes: who was seen lately and not
/// named, grouped by look, and who is enrolled. The recognition side keeps it; the preview server serves it.
public protocol PeopleDesk: Sendable {
    func listing() -> PeopleListing
    /// The best shot (a JPEG) of the track the desk numbers `track`, while it is shown.
    func picture(_ track: Int) -> [UInt8]?
    /// Makes `change`; it may wait on the gallery's lock, so it is called off the threads that must not wait, one
    /// change at a time.
    func perform(_ change: PeopleChange) -> PeopleChangeOutcome
}

/// The panel's contents.
public struct PeopleListing: Sendable, Equatable {
    /// The unknown, the most recently seen first.
    public var unknown: [UnknownGroup]
    /// Everyone enrolled, by name.
    public var known: [KnownPerson]

    public init(unknown: [UnknownGroup], known: [KnownPerson]) {
        self.unknown = unknown
        self.known = known
    }
}

/// One unknown person on the panel: tracks that look alike. Times are seconds since 1970.
public struct UnknownGroup: Sendable, Equatable {
    /// The desk's numbers of its tracks, the most recently seen first.
    public var tracks: [Int]
    /// The track whose picture is shown, and that picture's version (which changes when a better one replaces it).
    public var picture: Int
    public var pictureVersion: Int
    public var firstSeen: Double
    public var lastSeen: Double
    public var zones: [String]

    public init(tracks: [Int], picture: Int, pictureVersion: Int, firstSeen: Double, lastSeen: Double, zones: [String]) {
        (self.tracks, self.picture, self.pictureVersion) = (tracks, picture, pictureVersion)
        (self.firstSeen, self.lastSeen, self.zones) = (firstSeen, lastSeen, zones)
    }
}

/// An enrolled person and when the camera last saw them (nil: not since the start).
public struct KnownPerson: Sendable, Equatable {
    public var name: String
    public var lastSeen: Double?

    public init(name: String, lastSeen: Double?) {
        self.name = name
        self.lastSeen = lastSeen
    }
}

/// A change the panel asks for.
public enum PeopleChange: Sendable, Equatable {
    /// Enrol the tracks' descriptions under a name, new or enrolled already.
    case name(tracks: [Int], as: String)
    /// Take the tracks off the panel: they are not shown again, even while still in view.
    case dismiss(tracks: [Int])
    case rename(String, to: String)
    case forget(String)
}

/// How a change went, in a sentence for the page.
public enum PeopleChangeOutcome: Sendable, Equatable {
    case done(String)
    /// It cannot be made: a bad name, someone not enrolled.
    case refused(String)
    /// It no longer applies: the tracks were named or dismissed by another change first, or left the panel.
    case conflict(String)
    /// The gallery failed.
    case failed(String)
}
