import ArgumentParser
import FaceCam

/// --zone and --ignore-zone: polygons in the preview's pixels (detect, video, live).
struct ZoneOptions: ParsableArguments {
    @Option(name: .customLong("zone"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "A named zone: a polygon in preview pixels, its corners in order (repeat for more zones). Each face "
            + "lists the zones its centre lies in; with tracking, faces enter and leave each zone (--events, "
            + "--on-event, --mqtt).",
        valueName: "name=x1,y1,x2,y2,x3,y3,..."))
    var zoneTexts: [String] = []

    @Option(name: .customLong("ignore-zone"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "A polygon in preview pixels whose faces are dropped: a face centred in it is not reported, counted or "
            + "tracked (repeat for more).",
        valueName: "x1,y1,x2,y2,x3,y3,..."))
    var ignoreZoneTexts: [String] = []

    func validate() throws {
        _ = try parsed()
    }

    /// The zones, checked; nil when none were given.
    var settings: ZoneFilter? {
        (try? parsed()) ?? nil
    }

    private func parsed() throws -> ZoneFilter? {
        guard !zoneTexts.isEmpty || !ignoreZoneTexts.isEmpty else { return nil }
        let zones: [Zone]
        let ignored: [[Point]]
        do throws(ZoneError) {
            zones = try zoneTexts.map { (text) throws(ZoneError) in try Zone(parsing: text) }
        } catch {
            throw ValidationError("--zone \(error.description)")
        }
        do throws(ZoneError) {
            ignored = try ignoreZoneTexts.map { (text) throws(ZoneError) in try Zone.points(text, in: text) }
        } catch {
            throw ValidationError("--ignore-zone \(error.description)")
        }
        if let repeated = zones.map(\.name).first(where: { name in zones.filter { $0.name == name }.count > 1 }) {
            throw ValidationError("--zone \(repeated) is given twice: each zone needs a name of its own")
        }
        return ZoneFilter(zones: zones, ignored: ignored)
    }
}

/// --mask-zone: polygons in the preview's pixels painted black on every picture written or shown
/// (detect, video, live, redact).
struct MaskZoneOptions: ParsableArguments {
    @Option(name: .customLong("mask-zone"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "A polygon in preview pixels painted black on every picture written or shown (annotated and redacted files, "
            + "crops, live previews), after detection, which still sees it (repeat for more).",
        valueName: "x1,y1,x2,y2,x3,y3,..."))
    var maskZoneTexts: [String] = []

    func validate() throws {
        _ = try parsed()
    }

    /// The masks, checked (none when none were given).
    var masks: PrivacyMasks {
        (try? parsed()) ?? PrivacyMasks(polygons: [])
    }

    private func parsed() throws -> PrivacyMasks {
        do throws(ZoneError) {
            return PrivacyMasks(polygons: try maskZoneTexts.map { (text) throws(ZoneError) in try Zone.points(text, in: text) })
        } catch {
            throw ValidationError("--mask-zone \(error.description)")
        }
    }
}
