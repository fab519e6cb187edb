/// The assignment of rows to columns with the least total cost (the
/// Hungarian method, in the O(n²m) form with row and column potentials).
///
/// `costs[r][c]` is the cost of pairing row `r` with column `c`, or nil when
/// the pair is not allowed. Every row is paired with at most one column and
/// every column with at most one row; among the assignments with the most
/// allowed pairs, the one with the least total cost wins. The result has
/// one entry per row: its column, or nil.
func optimalAssignment(_ costs: [[Double?]]) -> [Int?] {
    let rows = costs.count
    guard rows > 0, let columns = costs.first?.count, columns > 0 else { return Array(repeating: nil, count: rows) }
    // A forbidden pair costs more than any assignment of allowed pairs, so
    // it is only taken when nothing else is left, and then dropped.
    let allowed = costs.joined().compactMap { $0 }
    let forbidden = (allowed.map(abs).max() ?? 0) * Double(rows + columns) + 1
    // The method needs rows <= columns: solve the transpose otherwise.
    let transposed = rows > columns
    let n = transposed ? columns : rows
    let m = transposed ? rows : columns
    func cost(_ i: Int, _ j: Int) -> Double {
        (transposed ? costs[j][i] : costs[i][j]) ?? forbidden
    }
    // 1-based, with row 0 and column 0 as the method's sentinels.
    var u = [Double](repeating: 0, count: n + 1)
    var v = [Double](repeating: 0, count: m + 1)
    var rowOfColumn = [Int](repeating: 0, count: m + 1)
    var way = [Int](repeating: 0, count: m + 1)
    for i in 1...n {
        rowOfColumn[0] = i
        var j0 = 0
        var minimum = [Double](repeating: .infinity, count: m + 1)
        var used = [Bool](repeating: false, count: m + 1)
        repeat {
            used[j0] = true
            let i0 = rowOfColumn[j0]
            var delta = Double.infinity
            var j1 = 0
            for j in 1...m where !used[j] {
                let reduced = cost(i0 - 1, j - 1) - u[i0] - v[j]
                if reduced < minimum[j] {
                    minimum[j] = reduced
                    way[j] = j0
                }
                if minimum[j] < delta {
                    delta = minimum[j]
                    j1 = j
                }
            }
            for j in 0...m {
                if used[j] {
                    u[rowOfColumn[j]] += delta
                    v[j] -= delta
                } else {
                    minimum[j] -= delta
                }
            }
            j0 = j1
        } while rowOfColumn[j0] != 0
        repeat {
            let j1 = way[j0]
            rowOfColumn[j0] = rowOfColumn[j1]
            j0 = j1
        } while j0 != 0
    }
    var result = [Int?](repeating: nil, count: rows)
    for j in 1...m where rowOfColumn[j] != 0 {
        let (row, column) = transposed ? (j - 1, rowOfColumn[j] - 1) : (rowOfColumn[j] - 1, j - 1)
        if costs[row][column] != nil { result[row] = column }
    }
    return result
}
