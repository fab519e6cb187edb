import FaceCam
import Synchronization

/// Who a running `live --recognize` saw lately, for the people panel of its page: the tracks it described that no one
/// enrolled matches (each with its best shot, a JPEG kept in memory only), grouped when they look like one person, and
/// when each enrolled person was last seen. The panel's changes (naming a group, dismissing one, renaming or forgetting
/// someone) write the gallery; the running namer takes them from there as it takes any other change (`GalleryFollower`).
/// The track namer (on the result sink's thread) reports to it; the preview server's connections read and change it.
public final class PeopleBoard: PeopleDesk {
    /// Tracks kept, the most recently seen; the oldest goes first, pictures and all.
    public static let capacity = 50
    /// A best shot's side, in pixels.
    public static let pictureSide = 112
    static let gone = "those faces were named or dismissed already, or are no longer on the board"

    /// One track of one source, as the tracker numbers it.
    struct Key: Hashable {
        var source: String
        var track: Int
    }

    struct Entry {
        /// The board's own number for it, which the panel uses.
        let number: Int
        var descriptions: [FaceDescriptor] = []
        var picture: [UInt8]?
        var pictureRank = -Double.infinity
        /// Counts its pictures, so that the page's picture address changes with it.
        var pictureVersion = 0
        var firstSeen: Double
        var lastSeen: Double
        var zones: Set<String> = []
        /// Its name, when an enrolled person matches it.
        var name: String?
        /// The name the panel enrolled it under, until the namer gives it one (it takes the gallery's change about a
        /// second later) or that name, once seen enrolled (`confirmed`), is no longer: a reading of the gallery made
        /// before the naming, and handed over after it, does not put it back among the unknown.
        var namedOnPanel: (name: String, confirmed: Bool)?
        /// Shown among the unknown.
        var isUnknown: Bool { name == nil && namedOnPanel == nil && !claimed && !dismissed }
        /// Taken by a naming that has not finished; not shown, not taken by another.
        var claimed = false
        var dismissed = false
    }

    struct State {
        /// By their numbers.
        var entries: [Int: Entry] = [:]
        /// The numbers of the tracks that have not ended.
        var open: [Key: Int] = [:]
        var nextNumber = 1
        /// Everyone enrolled, and when the camera last saw them (nil: not since the start).
        var known: [String: Double?] = [:]
    }

    private let galleryPath: String
    private let clusterThreshold: Double
    private let now: @Sendable () -> Double
    private let state = Mutex(State())

    /// A board whose changes go to the gallery at `galleryPath`; `now` is the wall clock (seconds since 1970) the panel shows.
    public init(
        galleryPath: String, enrolled: [String], clusterThreshold: Double = FaceClusterer.defaultThreshold,
        now: @escaping @Sendable () -> Double
    ) {
        self.galleryPath = galleryPath
        self.clusterThreshold = clusterThreshold
        self.now = now
        state.withLock { state in for name in enrolled { state.known[name] = .some(nil) } }
    }

    // MARK: What the namer reports

    /// The people enrolled now (the gallery changed): those seen keep when they were seen.
    func enrolled(_ names: Set<String>) {
        state.withLock { state in
            state.known = Dictionary(uniqueKeysWithValues: names.map { ($0, state.known[$0] ?? nil) })
            for (number, entry) in state.entries {
                guard let named = entry.namedOnPanel else { continue }
                let enrolled = names.contains(named.name)
                state.entries[number]!.namedOnPanel = enrolled ? (named.name, true) : named.confirmed ? nil : named
            }
        }
    }

    /// Whether a picture ranked `rank` of the track would replace its best shot (so that it is worth encoding).
    func wantsPicture(source: String, track: Int, rank: Double) -> Bool {
        state.withLock { state in
            guard let number = state.open[Key(source: source, track: track)], let entry = state.entries[number] else { return true }
            return !entry.dismissed && rank > entry.pictureRank
        }
    }

    /// The track's face seen at this frame, named `name` (nil: no one enrolled), in `zones`; described anew when
    /// `description` is given, with its picture when one was made.
    func seen(
        source: String, track: Int, name: String?, zones: [String], description: FaceDescriptor?, picture: (jpeg: [UInt8], rank: Double)?
    ) {
        let time = now()
        state.withLock { state in
            let key = Key(source: source, track: track)
            if let name, state.known[name] != nil { state.known[name] = time }
            var entry: Entry
            if let number = state.open[key], let open = state.entries[number] {
                entry = open
            } else {
                // A track joins the board at its first description, unless someone enrolled is seen in it.
                guard description != nil, name == nil else { return }
                entry = Entry(number: state.nextNumber, firstSeen: time, lastSeen: time)
                state.open[key] = entry.number
                state.nextNumber += 1
            }
            entry.lastSeen = time
            entry.name = name
            if name != nil { entry.namedOnPanel = nil }
            entry.zones.formUnion(zones)
            if let description { entry.descriptions.append(description) }
            if let picture, picture.rank > entry.pictureRank {
                (entry.picture, entry.pictureRank) = (picture.jpeg, picture.rank)
                entry.pictureVersion += 1
            }
            state.entries[entry.number] = entry
            if state.entries.count > Self.capacity, let oldest = state.entries.values.min(by: { $0.lastSeen < $1.lastSeen }) {
                state.entries[oldest.number] = nil
            }
        }
    }

    /// The track ended: should its number come again, it is another track.
    func ended(source: String, track: Int) {
        _ = state.withLock { $0.open.removeValue(forKey: Key(source: source, track: track)) }
    }

    // MARK: What the panel reads

    public func listing() -> PeopleListing {
        let (entries, known) = state.withLock { state in
            (state.entries.values.filter { $0.isUnknown && !$0.descriptions.isEmpty && $0.picture != nil }.sorted { $0.number < $1.number },
             state.known)
        }
        let people = known.map { KnownPerson(name: $0.key, lastSeen: $0.value) }.sorted { $0.name < $1.name }
        // Grouped as --cluster groups tracks; alone when the descriptions cannot be compared.
        let labels = (try? FaceClusterer.groups(entries.map { .mean($0.descriptions.map(\.unitLength)) }, threshold: clusterThreshold))
            ?? entries.indices.map { UInt32($0) }
        let groups = Dictionary(grouping: zip(labels, entries), by: \.0).values.map { members in
            let tracks = members.map(\.1).sorted { $0.lastSeen > $1.lastSeen }
            let shown = tracks.max { $0.pictureRank < $1.pictureRank }!
            return UnknownGroup(
                tracks: tracks.map(\.number), picture: shown.number, pictureVersion: shown.pictureVersion,
                firstSeen: tracks.map(\.firstSeen).min()!, lastSeen: tracks[0].lastSeen,
                zones: Set(tracks.flatMap(\.zones)).sorted())
        }
        return PeopleListing(unknown: groups.sorted { $0.lastSeen > $1.lastSeen }, known: people)
    }

    public func picture(_ number: Int) -> [UInt8]? {
        state.withLock { state in
            state.entries[number].flatMap { $0.isUnknown ? $0.picture : nil }
        }
    }

    // MARK: What the panel changes

    public func perform(_ change: PeopleChange) -> PeopleChangeOutcome {
        switch change {
        case .name(let tracks, let given):
            let name: String
            do throws(GalleryError) { name = try Gallery.checkName(given) } catch { return .refused(error.description) }
            guard let taken = claim(tracks) else { return .conflict(Self.gone) }
            do throws(GalleryError) {
                try Gallery(path: galleryPath, access: .write).enrol(name, descriptors: taken.descriptions, adding: true)
            } catch {
                release(taken.keys, naming: nil)
                return .failed(error.description)
            }
            release(taken.keys, naming: name)
            return .done("\(taken.descriptions.count) descriptions of \(taken.keys.count) \(taken.keys.count == 1 ? "track" : "tracks") "
                + "enrolled as '\(name)'")
        case .dismiss(let tracks):
            let dismissed = state.withLock { state in
                let numbers = Set(tracks).filter { state.entries[$0]?.isUnknown == true }
                for number in numbers {
                    state.entries[number]!.dismissed = true
                    state.entries[number]!.picture = nil
                }
                return numbers.count
            }
            return dismissed == 0 ? .conflict(Self.gone) : .done("dismissed \(dismissed) \(dismissed == 1 ? "track" : "tracks")")
        case .rename(let name, let given):
            let newName: String
            do throws(GalleryError) {
                newName = try Gallery.checkName(given)
                try Gallery(path: galleryPath, access: .write).rename(name, to: newName)
            } catch {
                return Self.outcome(error)
            }
            state.withLock { state in
                state.known[newName] = state.known.removeValue(forKey: Gallery.stored(name)) ?? nil
            }
            return .done("renamed '\(name)' to '\(newName)'")
        case .forget(let name):
            var said = "forgot '\(name)'"
            do throws(GalleryError) {
                try Gallery(path: galleryPath, access: .write).forget(name)
            } catch {
                // Forgotten, though another reader keeps the old pages for now: said as it is.
                guard case .logKept = error else { return Self.outcome(error) }
                said = error.description
            }
            state.withLock { _ = $0.known.removeValue(forKey: Gallery.stored(name)) }
            return .done(said)
        }
    }

    /// Takes the unclaimed, undismissed, unnamed tracks among `numbers` for a naming; nil when none is left.
    private func claim(_ numbers: [Int]) -> (keys: [Int], descriptions: [FaceDescriptor])? {
        state.withLock { state in
            let keys = Set(numbers).filter { state.entries[$0]?.isUnknown == true }.sorted()
            guard !keys.isEmpty else { return nil }
            for key in keys { state.entries[key]!.claimed = true }
            return (keys, keys.flatMap { state.entries[$0]!.descriptions })
        }
    }

    /// Ends a claim: the tracks named `naming` (until the namer names them itself), or back on the board when nil.
    private func release(_ keys: [Int], naming: String?) {
        state.withLock { state in
            for key in keys where state.entries[key] != nil {
                state.entries[key]!.claimed = false
                state.entries[key]!.namedOnPanel = naming.map { ($0, false) }
            }
            if let naming, state.known[naming] == nil {
                state.known[naming] = keys.compactMap { state.entries[$0]?.lastSeen }.max()
            }
        }
    }

    private static func outcome(_ error: GalleryError) -> PeopleChangeOutcome {
        switch error {
        case .badName, .unknownPerson, .nameTaken: .refused(error.description)
        default: .failed(error.description)
        }
    }
}
